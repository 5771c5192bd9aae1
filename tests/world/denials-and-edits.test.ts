import { afterEach, describe, expect, it } from "vitest";
import { auditApprovals } from "../../src/cli/audit-approvals.js";
import type { ApprovalsConfig } from "../../src/config/schema.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createHarness, type Harness, temporaryDatabaseUrl } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A model that runs `echo <word>` when asked to, and records every tool result it reads. */
function echoWhatIsAsked(toolTexts: string[]) {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") {
      toolTexts.push(last.text);
      return { text: "seen." };
    }
    const word = /run echo (\w+)/.exec(last?.text ?? "")?.[1];
    if (word === undefined) return { text: "noted." };
    return { text: "On it.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: [word] } }] };
  });
}

async function open(databaseUrl: string, toolTexts: string[], approvals: Record<string, unknown> = {}) {
  return createHarness({
    agents: [{ name: "alice", provider: echoWhatIsAsked(toolTexts), tools: ["shell_cmd"] }],
    platform: "telegram",
    databaseUrl,
    keepDatabase: true,
    world: { approvers: { telegram: ["requester", "boss"] }, approvals: approvals as unknown as ApprovalsConfig },
  });
}

describe("denials and edits across a restart", () => {
  it("a denial with its reason sticks after a restart; an edit is kept beside the model's arguments; the audit shows both", async () => {
    const databaseUrl = temporaryDatabaseUrl();
    const toolTexts: string[] = [];
    harness = await open(databaseUrl, toolTexts, { edit: true });
    await harness.say("@alice run echo hello", { user: "ana" });
    await harness.idle();
    const [first] = harness.channel.cards();
    expect(first?.card.inputs).toEqual(["reason", "edit"]);
    expect(
      await harness.click(first?.card.approvalId ?? "", "deny", { user: "boss", reason: "not now" }),
    ).toMatchObject({
      status: "decided",
    });
    await harness.idle();
    await harness.say("@alice run echo bye", { user: "ana" });
    await harness.idle();
    const second = harness.channel.cards().at(-1);
    const edited = await harness.click(second?.card.approvalId ?? "", "edit", {
      user: "boss",
      editedArgumentsJson: '{"args":["edited"],"command":"echo"}',
    });
    expect(edited).toMatchObject({ status: "decided", text: "Approved once with your edit." });
    await harness.idle();
    expect(toolTexts.at(-1)).toMatch(
      /^note: boss edited the arguments before it ran: \{"args":\["edited"\],"command":"echo"\}\n/,
    );
    await harness.close();

    const after: string[] = [];
    harness = await open(databaseUrl, after, { edit: true });
    await harness.say("@alice run echo hello", { user: "ana" });
    await harness.idle();
    expect(harness.channel.cards()).toHaveLength(0);
    expect(after).toEqual(["denied: the same call was denied by boss (not now)"]);

    const audited = await auditApprovals(harness.store, new Date(0));
    expect(audited.map((entry) => [entry.state, entry.choice, entry.denialReason, entry.edit])).toEqual([
      ["denied", "deny", "not now", undefined],
      ["approved", "edit", undefined, { by: "boss", argumentsJson: '{"args":["edited"],"command":"echo"}' }],
    ]);
    expect(JSON.parse(audited[1]?.argumentsJson ?? "")).toEqual({ command: "echo", args: ["bye"] });
  });

  it("refuses an edit where approvals.edit is off, and one by someone who may not decide; nothing is decided", async () => {
    const toolTexts: string[] = [];
    harness = await open(temporaryDatabaseUrl(), toolTexts);
    await harness.say("@alice run echo hello", { user: "ana" });
    await harness.idle();
    const [card] = harness.channel.cards();
    expect(card?.card.inputs).toEqual(["reason"]);
    const id = card?.card.approvalId ?? "";
    const json = '{"command":"echo","args":["x"]}';
    expect(await harness.click(id, "edit", { user: "boss", editedArgumentsJson: json })).toEqual({
      status: "not-allowed",
      text: "Editing is not enabled in this world; nothing was decided.",
    });
    await harness.close();

    harness = await open(temporaryDatabaseUrl(), toolTexts, { edit: true });
    await harness.say("@alice run echo hello", { user: "ana" });
    await harness.idle();
    const [other] = harness.channel.cards();
    const byStranger = await harness.click(other?.card.approvalId ?? "", "edit", {
      user: "eve",
      editedArgumentsJson: json,
    });
    expect(byStranger.status).toBe("not-allowed");
    expect((await harness.store.getApproval(other?.card.approvalId ?? ""))?.state).toBe("pending");
  });
});
