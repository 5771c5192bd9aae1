/**
 * A real Roundtable process on a fake Telegram (long polling) for the stream-kill test:
 * `stream-kill-child.ts <phase> <databaseUrl> <telegram api root>`. Prints milestones on
 * stdout; the test SIGKILLs it while an answer streams.
 */
import { TelegramAdapter } from "../../channels/telegram/adapter.js";
import type { ModelProvider, StreamPart } from "../../src/providers/model-provider.js";
import { chatKey } from "../../src/world/chat-ref.js";
import type { Store } from "../../src/world/store.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { capturingLogger, groupId, mainToken } from "../telegram/helpers.js";
import { createHarness } from "./harness.js";

const [phase, databaseUrl, apiRoot] = process.argv.slice(2);
if (!phase || !databaseUrl || !apiRoot) throw new Error("usage: stream-kill-child <phase> <databaseUrl> <apiRoot>");

const fullAnswer = "First part of the answer, and the rest of it, complete.";
const groupKey = chatKey({ platform: "telegram", channel: String(groupId) });
const never = new Promise<void>(() => {});

function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A model that writes the first part of its answer, then hangs (the process dies meanwhile). */
const hanging: ModelProvider = {
  name: "hanging",
  async *stream(): AsyncIterable<StreamPart> {
    yield { type: "text-delta", text: "First part of the answer, " };
    await never;
  },
};

/** The id of the message bob's answer to the person's message becomes, once that message is stored. */
async function answerId(store: Store): Promise<string | undefined> {
  const human = (await store.listMessages(groupKey)).find((message) => message.author.kind === "human");
  return human ? `${human.id}>bob#1` : undefined;
}

async function main(): Promise<void> {
  const adapter = new TelegramAdapter({
    token: mainToken,
    apiRoot: apiRoot as string,
    logger: capturingLogger().logger,
    agentNames: ["bob"],
    pollingTimeoutSeconds: 1,
    throttle: { groupIntervalMs: 50, privateIntervalMs: 50 },
  });
  const provider = phase === "stream-and-hang" ? hanging : new ScriptedProvider(() => ({ text: fullAnswer }));
  const harness = await createHarness({
    databaseUrl: databaseUrl as string,
    keepDatabase: true,
    agents: [{ name: "bob", provider }],
    channels: [adapter],
    channelsConfig: { telegram: { chats: { "*": "main" } } },
  });
  if (phase === "stream-and-hang") {
    // The draft is in the chat and recorded: now is the moment to die.
    await harness.waitFor(async () => {
      const id = await answerId(harness.store);
      return id !== undefined && (await harness.store.getOutbound("draft", id)) !== undefined;
    }, 30_000);
    report("STREAMING");
    await never;
    return;
  }
  await harness.waitFor(async () => {
    const id = await answerId(harness.store);
    return id !== undefined && (await harness.store.getOutbound("message", id)) !== undefined;
  }, 30_000);
  report("ANSWERED");
  await harness.close();
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
