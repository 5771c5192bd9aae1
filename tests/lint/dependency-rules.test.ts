import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const depcruise = path.join(root, "node_modules", ".bin", "depcruise");
const environment = {
  ...process.env,
  PATH: `${path.join(root, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`,
};

let project: string;

/** A tiny project with the repository's rules; `files` maps paths to their text. */
async function writeProject(files: Record<string, string>): Promise<void> {
  await cp(path.join(root, ".dependency-cruiser.cjs"), path.join(project, ".dependency-cruiser.cjs"));
  await mkdir(path.join(project, "src"), { recursive: true });
  await mkdir(path.join(project, "channels"), { recursive: true });
  await writeFile(
    path.join(project, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true } }),
  );
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(project, file)), { recursive: true });
    await writeFile(path.join(project, file), text);
  }
}

/** Runs depcruise the way `npm run deps` does; resolves with its exit code and output. */
async function cruise(): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(depcruise, ["src", "channels", "--config", ".dependency-cruiser.cjs"], {
      cwd: project,
      env: environment,
    });
    return { code: 0, output: stdout };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failure.code ?? -1, output: `${failure.stdout ?? ""}${failure.stderr ?? ""}` };
  }
}

const worldTypes = "export type ChatRef = { channel: string };\n";
const channelEntry = 'export type { ChatRef } from "./chat-ref.js";\n';

beforeEach(async () => {
  project = await mkdtemp(path.join(tmpdir(), "roundtable-deps-"));
});

afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

describe("import rules (.dependency-cruiser.cjs)", () => {
  it("a project that keeps the rules passes", async () => {
    await writeProject({
      "src/world/chat-ref.ts": worldTypes,
      "src/world/channel-adapter.ts": channelEntry,
      "src/errors/roundtable-error.ts": "export class RoundtableError extends Error {}\n",
      "channels/telegram/parse.ts":
        'import type { ChatRef } from "../../src/world/channel-adapter.js";\nimport { RoundtableError } from "../../src/errors/roundtable-error.js";\nexport const parse = (chat: ChatRef) => new RoundtableError(chat.channel);\n',
      "src/storage/prisma/generated/client.ts": "export const client = 1;\n",
      "src/storage/prisma/prisma-store.ts":
        'import { client } from "./generated/client.js";\nimport type { Store } from "../../world/store.js";\nexport const store: Store = { client };\n',
      "src/world/store.ts": "export interface Store { client: number }\n",
    });
    const result = await cruise();
    expect(result.output).toContain("no dependency violations found");
    expect(result.code).toBe(0);
  });

  it("src/world importing a channel or a provider fails", async () => {
    await writeProject({
      "channels/telegram/render.ts": "export const render = 1;\n",
      "src/providers/openai/openai-provider.ts": "export const provider = 1;\n",
      "src/world/world-engine.ts":
        'import { render } from "../../channels/telegram/render.js";\nimport { provider } from "../providers/openai/openai-provider.js";\nexport const engine = render + provider;\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      "error world-knows-no-platform-or-provider: src/world/world-engine.ts → channels/telegram/render.ts",
    );
    expect(result.output).toContain(
      "error world-knows-no-platform-or-provider: src/world/world-engine.ts → src/providers/openai/openai-provider.ts",
    );
  });

  it("src/agents importing delivery other than the answer handle fails", async () => {
    await writeProject({
      "src/world/delivery/post-key.ts": "export type PostKey = { id: string };\n",
      "src/world/delivery/answer-draft.ts": "export const openAnswer = () => undefined;\n",
      "src/agents/run-model-step.ts":
        'import type { PostKey } from "../world/delivery/post-key.js";\nimport { openAnswer } from "../world/delivery/answer-draft.js";\nexport const step = (key: PostKey) => [key, openAnswer];\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      "error agents-reach-delivery-only-through-the-answer: src/agents/run-model-step.ts → src/world/delivery/post-key.ts",
    );
    expect(result.output).not.toContain("→ src/world/delivery/answer-draft.ts");
  });

  it("src/world/delivery importing the outbox fails; the outbox importing delivery's types passes", async () => {
    await writeProject({
      "src/world/delivery/drafts.ts": "export class AnswerDrafts {}\n",
      "src/world/outbox.ts":
        'import type { AnswerDrafts } from "./delivery/drafts.js";\nexport class Outbox { constructor(readonly drafts: AnswerDrafts) {} }\n',
      "src/world/delivery/deliver.ts":
        'import type { Outbox } from "../outbox.js";\nexport const deliver = (outbox: Outbox) => outbox.drafts;\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      "error delivery-never-imports-the-outbox: src/world/delivery/deliver.ts → src/world/outbox.ts",
    );
    expect(result.output).not.toContain("error delivery-never-imports-the-outbox: src/world/outbox.ts");
  });

  it("posting through a channel's writer outside src/world/delivery fails; inside it passes", async () => {
    await writeProject({
      "src/world/delivery/channel-writer.ts": "export const writerFor = () => undefined;\n",
      "src/world/delivery/edit-stream.ts": "export class EditStream {}\n",
      "src/world/delivery/deliver.ts":
        'import { writerFor } from "./channel-writer.js";\nexport const deliver = writerFor;\n',
      "src/world/turn/quorum.ts":
        'import { writerFor } from "../delivery/channel-writer.js";\nexport const redraw = writerFor;\n',
      "src/agents/run-model-step.ts":
        'import { EditStream } from "../world/delivery/edit-stream.js";\nexport const stream = EditStream;\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      "error only-delivery-writes-to-channels: src/world/turn/quorum.ts → src/world/delivery/channel-writer.ts",
    );
    expect(result.output).toContain(
      "error only-delivery-writes-to-channels: src/agents/run-model-step.ts → src/world/delivery/edit-stream.ts",
    );
    expect(result.output).not.toContain("src/world/delivery/deliver.ts →");
  });

  it("src/world importing storage fails", async () => {
    await writeProject({
      "src/storage/open-store.ts": "export const openStore = 1;\n",
      "src/world/ingress.ts":
        'import { openStore } from "../storage/open-store.js";\nexport const ingress = openStore;\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("error world-owns-its-model: src/world/ingress.ts → src/storage/open-store.ts");
  });

  it("src/world importing the config fails", async () => {
    await writeProject({
      "src/config/schema.ts": "export type WorldConfig = { name: string };\n",
      "src/world/world-directory.ts":
        'import type { WorldConfig } from "../config/schema.js";\nexport const names = (worlds: WorldConfig[]) => worlds.map((world) => world.name);\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("error world-owns-its-model: src/world/world-directory.ts → src/config/schema.ts");
  });

  it("src/world importing a platform or model SDK fails", async () => {
    await writeProject({
      "src/world/world-engine.ts":
        'import OpenAI from "openai";\nimport { Bot } from "grammy";\nexport const parts = [OpenAI, Bot];\n',
      "src/agents/tool-loop.ts": 'import OpenAI from "openai";\nexport const client = OpenAI;\n',
    });
    await symlink(path.join(root, "node_modules"), path.join(project, "node_modules"), "dir");
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(
      /error world-uses-no-platform-or-model-sdk: src\/world\/world-engine\.ts → \S*node_modules\/openai\//,
    );
    expect(result.output).toMatch(
      /error world-uses-no-platform-or-model-sdk: src\/world\/world-engine\.ts → \S*node_modules\/grammy\//,
    );
    expect(result.output).not.toContain("src/agents/tool-loop.ts");
  });

  it("a channel importing beyond the world's types fails", async () => {
    await writeProject({
      "src/world/chat-ref.ts": worldTypes,
      "src/agents/tool-loop.ts": "export const loop = 1;\n",
      "channels/slack/adapter.ts":
        'import { loop } from "../../src/agents/tool-loop.js";\nexport const adapter = loop;\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      "error channels-import-only-world: channels/slack/adapter.ts → src/agents/tool-loop.ts",
    );
  });

  it("a channel or the kit importing src/world beside the channel entry fails; through the entry passes", async () => {
    await writeProject({
      "src/world/chat-ref.ts": worldTypes,
      "src/world/channel-adapter.ts": channelEntry,
      "src/world/delivery/post-key.ts": "export type PartKey = { key: string };\n",
      "channels/slack/parse.ts":
        'import type { ChatRef } from "../../src/world/chat-ref.js";\nexport const parse = (chat: ChatRef) => chat;\n',
      "channels/kit/part.ts":
        'import type { PartKey } from "../../src/world/delivery/post-key.js";\nexport const part = (key: PartKey) => key;\n',
      "channels/telegram/parse.ts":
        'import type { ChatRef } from "../../src/world/channel-adapter.js";\nexport const parse = (chat: ChatRef) => chat;\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      "error channels-through-their-entry: channels/slack/parse.ts → src/world/chat-ref.ts",
    );
    expect(result.output).toContain(
      "error channels-through-their-entry: channels/kit/part.ts → src/world/delivery/post-key.ts",
    );
    expect(result.output).not.toContain("channels/telegram/parse.ts →");
  });

  it("channels/kit importing a platform SDK or a channel fails; a channel importing the kit passes", async () => {
    await writeProject({
      "channels/telegram/render.ts": "export const render = 1;\n",
      "channels/kit/texts.ts":
        'import { Bot } from "grammy";\nimport { render } from "../telegram/render.js";\nexport const texts = [Bot, render];\n',
      "channels/slack/adapter.ts": 'import { texts } from "../kit/texts.js";\nexport const adapter = texts;\n',
    });
    await symlink(path.join(root, "node_modules"), path.join(project, "node_modules"), "dir");
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(
      /error channels-kit-is-platform-free: channels\/kit\/texts\.ts → \S*node_modules\/grammy\//,
    );
    expect(result.output).toContain(
      "error channels-kit-is-platform-free: channels/kit/texts.ts → channels/telegram/render.ts",
    );
    expect(result.output).not.toContain("channels/slack/adapter.ts");
  });

  it("Prisma's generated client used outside src/storage/prisma fails", async () => {
    await writeProject({
      "src/storage/prisma/generated/client.ts": "export const client = 1;\n",
      "src/app/start.ts":
        'import { client } from "../storage/prisma/generated/client.js";\nexport const start = client;\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      "error prisma-stays-in-storage: src/app/start.ts → src/storage/prisma/generated/client.ts",
    );
  });

  it("the turn folder is used through its entry; a channel never imports it, only the approval types through the channel entry", async () => {
    const turnTypes = "export type ApprovalCard = { approvalId: string };\n";
    await writeProject({
      "src/world/turn/approval-types.ts": turnTypes,
      "src/world/turn/close-turn.ts": "export const closeTurn = () => undefined;\n",
      "src/world/turn/index.ts":
        'export type { ApprovalCard } from "./approval-types.js";\nexport { closeTurn } from "./close-turn.js";\n',
      "src/world/approval-types.ts": 'export type { ApprovalCard } from "./turn/approval-types.js";\n',
      "src/world/channel-adapter.ts": 'export type { ApprovalCard } from "./approval-types.js";\n',
      "src/world/route-message.ts": 'import { closeTurn } from "./turn/index.js";\nexport const route = closeTurn;\n',
      "src/agents/end-turn.ts":
        'import { closeTurn } from "../world/turn/close-turn.js";\nexport const end = closeTurn;\n',
      "channels/slack/render.ts":
        'import type { ApprovalCard } from "../../src/world/channel-adapter.js";\nexport const render = (card: ApprovalCard) => card.approvalId;\n',
      "channels/slack/adapter.ts":
        'import { closeTurn } from "../../src/world/turn/index.js";\nexport const adapter = closeTurn;\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      "error turns-through-their-entry: src/agents/end-turn.ts → src/world/turn/close-turn.ts",
    );
    expect(result.output).toContain(
      "error channels-never-import-turns: channels/slack/adapter.ts → src/world/turn/index.ts",
    );
    expect(result.output).not.toContain("src/world/route-message.ts →");
    expect(result.output).not.toContain("channels/slack/render.ts →");
    expect(result.output).not.toContain("src/world/approval-types.ts →");
    expect(result.output).not.toContain("src/world/channel-adapter.ts →");
  });

  it("src/agents importing the turn folder fails, even its entry; the workers' port passes; only the engine runs the loop", async () => {
    await writeProject({
      "src/world/turn/close-turn.ts": "export const closeTurn = () => undefined;\n",
      "src/world/turn/index.ts": 'export { closeTurn } from "./close-turn.js";\n',
      "src/world/turn/turn-loop.ts": "export class TurnLoop {}\n",
      "src/world/world-context.ts":
        "export interface TurnWorkers { modelProblem(agent: string): string | undefined }\n",
      "src/world/world-engine.ts": 'import { TurnLoop } from "./turn/turn-loop.js";\nexport const loop = TurnLoop;\n',
      "src/world/route-message.ts": 'import { TurnLoop } from "./turn/turn-loop.js";\nexport const route = TurnLoop;\n',
      "src/agents/agent-workers.ts":
        'import type { TurnWorkers } from "../world/world-context.js";\nexport const workers: TurnWorkers = { modelProblem: () => undefined };\n',
      "src/agents/continue-turn.ts":
        'import { closeTurn } from "../world/turn/index.js";\nexport const next = closeTurn;\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      "error agents-never-import-turns: src/agents/continue-turn.ts → src/world/turn/index.ts",
    );
    expect(result.output).toContain(
      "error turn-loop-only-from-the-engine: src/world/route-message.ts → src/world/turn/turn-loop.ts",
    );
    expect(result.output).not.toContain("src/agents/agent-workers.ts →");
    expect(result.output).not.toContain("src/world/world-engine.ts →");
  });

  it("a cycle fails", async () => {
    await writeProject({
      "src/tools/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
      "src/tools/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/error no-circular: src\/tools\/a\.ts →\s+src\/tools\/b\.ts →\s+src\/tools\/a\.ts/);
  });

  it("an import that resolves to nothing fails", async () => {
    await writeProject({
      "src/tools/a.ts": 'import { b } from "./missing.js";\nexport const a = () => b;\n',
    });
    const result = await cruise();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("error not-to-unresolvable: src/tools/a.ts → ./missing.js");
  });
});
