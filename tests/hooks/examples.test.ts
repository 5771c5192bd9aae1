/**
 * The example policies under examples/hooks/ (each referenced from the README): each does what
 * it says through the same runner the service uses, and every example and a user's own module
 * type-check against `roundtable/hooks` (the package's `exports` entry) in a project of its own.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { loadHookModule } from "../../src/hooks/load-hook-module.js";
import { runModule } from "../../src/hooks/module-policy.js";
import type { MessageEvent, ToolCallEvent } from "../../src/world/policy/event-policy.js";
import { officeHoursDenial } from "../../examples/hooks/office-hours.js";

const root = path.resolve(import.meta.dirname, "../..");
const logger = pino({ level: "silent" });
const scope = { world: "team", chatKey: "telegram::-100:", history: async () => [] };

function messageEvent(text: string): MessageEvent {
  return {
    type: "message",
    createdBy: "user",
    world: "team",
    chat: { platform: "telegram", id: "-100" },
    message: { id: "m1", senderName: "Ana", senderId: "111", text, files: [], addressed: [] },
  };
}

const kubectl: ToolCallEvent = {
  type: "tool_call",
  createdBy: "agent",
  world: "team",
  chat: { platform: "telegram", id: "-100" },
  agent: "alice",
  turnId: "m1>alice",
  toolCalls: [
    { id: "c1", name: "shell_cmd", arguments: { command: "kubectl", args: ["get", "pods"] }, approval: "required" },
  ],
};

async function example(name: string) {
  return loadHookModule(path.join(root, "examples/hooks", name), 5_000);
}

describe("examples/hooks", () => {
  it("redact-emails.ts replaces addresses before the model sees them", async () => {
    const module = await example("redact-emails.ts");
    const decision = await runModule(module, messageEvent("mail jo@example.com and al@x.org"), scope, logger);
    expect(decision).toMatchObject({ outcome: "replaced", event: { message: { text: "mail [email] and [email]" } } });
    expect(await runModule(module, messageEvent("no address here"), scope, logger)).toEqual({ outcome: "kept" });
  });

  it("answer-faq.ts answers without a model call", async () => {
    const module = await example("answer-faq.ts");
    const decision = await runModule(module, messageEvent("What are your opening hours?"), scope, logger);
    expect(decision).toMatchObject({
      outcome: "responded",
      message: { text: expect.stringMatching(/Monday to Friday/) },
    });
    expect(await runModule(module, messageEvent("@alice deploy"), scope, logger)).toEqual({ outcome: "kept" });
  });

  it("office-hours.ts denies kubectl outside weekdays 9-18 UTC and lets everything else by", async () => {
    expect(officeHoursDenial(kubectl, new Date("2026-12-05T10:00:00Z"))).toMatch(/weekdays/); // a Saturday
    expect(officeHoursDenial(kubectl, new Date("2026-12-02T20:00:00Z"))).toMatch(/weekdays/);
    expect(officeHoursDenial(kubectl, new Date("2026-12-02T10:00:00Z"))).toBeUndefined();
    const ls = {
      ...kubectl,
      toolCalls: [
        {
          ...kubectl.toolCalls[0],
          id: "c1",
          name: "shell_cmd",
          arguments: { command: "ls" },
          approval: "required" as const,
        },
      ],
    };
    expect(officeHoursDenial(ls, new Date("2026-12-05T10:00:00Z"))).toBeUndefined();
    const module = await example("office-hours.ts");
    const decision = await runModule(module, kubectl, scope, logger);
    expect(["kept", "responded"]).toContain(decision.outcome);
  });

  it("every example and a user's module type-check against roundtable/hooks", () => {
    const project = mkdtempSync(path.join(tmpdir(), "rt-hooks-types-"));
    mkdirSync(path.join(project, "node_modules"));
    symlinkSync(root, path.join(project, "node_modules", "roundtable"), "dir");
    cpSync(path.join(root, "examples/hooks"), path.join(project, "policies"), { recursive: true });
    writeFileSync(
      path.join(project, "policies", "mine.ts"),
      `import type { HookContext, Respond, RoundtableEvent } from "roundtable/hooks";
export async function onEvent(event: RoundtableEvent, respond: Respond, context: HookContext): Promise<RoundtableEvent | undefined> {
  const recent = await context.history(5);
  context.log.info({ recent: recent.length }, "seen");
  if (event.type === "tool_call") return { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, approval: "required" })) };
  if (event.message.files.length > 0) respond({ text: "files are not allowed here", sender: "system" }, { enqueueAfter: "tool_results" });
  return undefined;
}
`,
    );
    writeFileSync(path.join(project, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          verbatimModuleSyntax: true,
          types: [],
          lib: ["ES2023"],
        },
        include: ["policies"],
      }),
    );
    const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
    expect(() => execFileSync(process.execPath, [tsc, "-p", project], { encoding: "utf8" })).not.toThrow();
    // And a wrong use is caught: a tool call's approval is "required" or "never".
    writeFileSync(
      path.join(project, "policies", "wrong.ts"),
      `import type { OnEvent } from "roundtable/hooks";
export const onEvent: OnEvent = (event) => event.type === "tool_call" ? { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, approval: "maybe" })) } : undefined;
`,
    );
    let output = "";
    try {
      execFileSync(process.execPath, [tsc, "-p", project], { encoding: "utf8" });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout);
    }
    expect(output).toMatch(/wrong\.ts.*"maybe"/s);
  });
});
