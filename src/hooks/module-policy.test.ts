import pino from "pino";
import { describe, expect, it } from "vitest";
import type { MessageEvent, RoundtableEvent } from "../world/policy/event-policy.js";
import type { OnEvent } from "../world/policy/hook-events.js";
import type { HookModule } from "./load-hook-module.js";
import { ModulePolicy } from "./module-policy.js";

const logger = pino({ level: "silent" });
const scope = { world: "team", chatKey: "console:team:ana:", history: async () => [] };
const event: MessageEvent = {
  type: "message",
  createdBy: "user",
  world: "team",
  chat: { platform: "console", id: "ana" },
  message: { id: "m1", senderName: "ana", text: "hello", files: [], addressed: [] },
};
const module = (file: string, onEvent: OnEvent): HookModule => ({ file, onEvent, timeoutMs: 1_000 });
const withText = (given: RoundtableEvent, text: string): RoundtableEvent =>
  given.type === "message" ? { ...given, message: { ...given.message, text } } : given;

describe("ModulePolicy", () => {
  it("runs the top-level module, then the world's own on what the first returned", async () => {
    const seen: string[] = [];
    const policy = new ModulePolicy(
      module("top.mjs", (given) => withText(given, "top")),
      new Map([
        [
          "team",
          module("team.mjs", (given) => {
            if (given.type !== "message") return undefined;
            seen.push(given.message.text);
            return withText(given, `${given.message.text}+team`);
          }),
        ],
      ]),
      logger,
    );
    expect(policy.appliesTo("team")).toBe(true);
    expect(await policy.decide(event, scope)).toMatchObject({
      outcome: "replaced",
      event: { message: { text: "top+team" } },
    });
    expect(seen).toEqual(["top"]);
    const onlyWorld = new ModulePolicy(undefined, new Map([["team", module("team.mjs", () => undefined)]]), logger);
    expect(onlyWorld.appliesTo("other")).toBe(false);
  });

  it("a respond of the first module ends it; the second is not asked", async () => {
    let asked = false;
    const policy = new ModulePolicy(
      module("top.mjs", (_, respond) => {
        respond({ text: "answered", sender: "system" }, { enqueueAfter: "tool_results" });
        return undefined;
      }),
      new Map([
        [
          "team",
          module("team.mjs", () => {
            asked = true;
            return undefined;
          }),
        ],
      ]),
      logger,
    );
    expect(await policy.decide(event, scope)).toEqual({
      outcome: "responded",
      message: { text: "answered", sender: "system" },
      options: { enqueueAfter: "tool_results" },
    });
    expect(asked).toBe(false);
  });

  it("a change in place without returning keeps the event; a foreign return or an empty respond fails", async () => {
    const inPlace = new ModulePolicy(
      module("a.mjs", (given) => {
        if (given.type === "message") given.message.text = "changed";
        return undefined;
      }),
      new Map(),
      logger,
    );
    expect(await inPlace.decide(event, scope)).toEqual({ outcome: "kept" });
    expect(event.message.text).toBe("hello");
    const foreign = new ModulePolicy(
      module("b.mjs", () => ({ ...event, message: { ...event.message, id: "other" } })),
      new Map(),
      logger,
    );
    expect(await foreign.decide(event, scope)).toMatchObject({
      outcome: "failed",
      error: expect.stringMatching(/not the event/),
    });
    const empty = new ModulePolicy(
      module("c.mjs", (_, respond) => {
        respond({ text: "" });
        return undefined;
      }),
      new Map(),
      logger,
    );
    expect(await empty.decide(event, scope)).toMatchObject({ outcome: "failed" });
  });
});
