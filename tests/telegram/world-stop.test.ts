import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { SlowProvider } from "../fakes/slow-provider.js";
import type { StoredMessage } from "../fakes/telegram-api.js";
import { isRecordedAlive, type RecordedPid, readRecordedPid, recordPid } from "../tools/recorded-pid.js";
import { waitUntil } from "../tools/wait-until.js";
import { ana, eve, groupId, mainToken } from "./helpers.js";
import { groupKey, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Keyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

function buttonsOf(message: StoredMessage | undefined): { text: string; callback_data: string }[] {
  return ((message?.reply_markup as Keyboard | undefined)?.inline_keyboard ?? []).flat();
}

/** The streamed answer, once it is in the group with its Stop button. */
async function streamingAnswer(t: WorldTelegram): Promise<StoredMessage> {
  let found: StoredMessage | undefined;
  await t.world.waitFor(() => {
    found = t.botMessages().find((message) => buttonsOf(message).some((button) => button.text === "⏹ Stop"));
    return found !== undefined;
  }, 5_000);
  return found as StoredMessage;
}

async function expectStoppedStream(t: WorldTelegram, alice: SlowProvider, answer: StoredMessage, by: string) {
  expect(alice.endings).toEqual(["aborted"]);
  const settled = t.fake.message(answer.chat.id, answer.message_id);
  expect(settled?.text).toBe(`alice: Here is the first part of a long answer\n\n(stopped by ${by})`);
  expect(settled?.reply_markup).toBeUndefined();
  // The answer stays in the one message that was streamed: nothing was posted again for it.
  expect(t.botTexts().filter((text) => text.startsWith("alice:"))).toHaveLength(1);
  const [turn] = await t.world.store.listTurns({ chatKey: groupKey });
  expect(turn).toMatchObject({ state: "ended", endReason: "stopped", stoppedBy: { name: by } });
  expect(alice.requests).toHaveLength(1);
}

describe("/stop on Telegram", () => {
  it("a typed /stop ends a slowly streaming answer: the message keeps the partial text, ending '(stopped by Ana)'", async () => {
    const alice = new SlowProvider();
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    t.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "write a long essay" });
    const answer = await streamingAnswer(t);
    expect(buttonsOf(answer)).toEqual([{ text: "⏹ Stop", callback_data: "st:alice" }]);

    await t.say(ana, "/stop");
    await expectStoppedStream(t, alice, answer, "Ana");
    expect(t.botTexts().at(-1)).toBe("Stopped alice (by Ana).");
  });

  it("the Stop button does the same; someone who may not stop it is told so privately and nothing changes", async () => {
    const alice = new SlowProvider();
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    t.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "write a long essay" });
    const answer = await streamingAnswer(t);

    const refusedQuery = t.fake.pressButton(mainToken, {
      chatId: answer.chat.id,
      messageId: answer.message_id,
      from: eve,
      data: "st:alice",
    });
    await t.world.waitFor(() => t?.fake.callbackAnswers.has(refusedQuery) ?? false);
    expect(t.fake.callbackAnswers.get(refusedQuery)).toEqual({
      text: "Only the person who asked or an approver may stop alice.",
      show_alert: true,
    });
    expect(alice.endings).toEqual([]);

    const query = await t.press(ana, answer.message_id, "st:alice");
    expect(t.fake.callbackAnswers.get(query)).toEqual({ text: "Stopped alice (by Ana).", show_alert: false });
    await expectStoppedStream(t, alice, answer, "Ana");
  });

  it("a tool sleeping 30 s: /stop kills its process group and the call gets 'interrupted'", async () => {
    const workdir = mkdtempSync(path.join(tmpdir(), "rt-tg-stop-"));
    const alice = new ScriptedProvider((request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "after the tool" }
        : {
            text: "",
            toolCalls: [
              {
                name: "shell_cmd",
                args: { command: "sh", args: ["-c", `sleep 30 & ${recordPid("$!", "sleep.pid")}; wait`] },
              },
            ],
          },
    );
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { defaultAgent: "alice", workdir },
      tools: { approval: { shell_cmd: "never" } },
    });
    t.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "sleep" });
    let sleep: RecordedPid | undefined;
    await waitUntil("the tool's sleep runs", () => {
      sleep = readRecordedPid(path.join(workdir, "sleep.pid"));
      return sleep !== undefined && isRecordedAlive(sleep);
    });
    await t.say(ana, "/stop");
    await waitUntil("the sleep is gone", () => sleep === undefined || !isRecordedAlive(sleep), 5_000);
    const [call] = await t.world.store.listToolCalls({ chatKey: groupKey });
    expect((await t.world.store.getToolResult(call?.id ?? ""))?.content).toBe("interrupted: stopped by Ana");
    expect(alice.requests).toHaveLength(1);
  });

  it("a parked approval: /stop closes its card as skipped, saying who stopped it", async () => {
    const alice = new ScriptedProvider([{ text: "", toolCalls: [{ name: "shell_cmd", args: { command: "ls" } }] }]);
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }] });
    await t.say(ana, "@alice list files");
    const card = t.botMessages().find((message) => buttonsOf(message).length > 0);
    expect(card).toBeDefined();

    await t.say(ana, "/stop");
    const closed = t.fake.message(card?.chat.id ?? 0, card?.message_id ?? 0);
    expect(closed?.text).toMatch(/^⏭ Skipped: stopped by Ana\n/);
    expect(closed?.reply_markup).toBeUndefined();
    expect(t.botTexts().at(-1)).toBe("Stopped alice (by Ana).");
    expect(alice.requests).toHaveLength(1);
  });
});
