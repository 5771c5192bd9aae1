import { afterEach, expect, it } from "vitest";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { createPostgresDatabase, describePostgres } from "../storage/test-databases.js";
import { createHarness, type Harness } from "./harness.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const chatKey = "telegram::chat-1:";

/** One service process's world on the shared database: its own store connection, queue and channel. */
async function serviceOn(databaseUrl: string, tool: ScriptedProvider): Promise<Harness> {
  const harness = await createHarness({
    databaseUrl,
    platform: "telegram",
    agents: [{ name: "alice", provider: tool, tools: ["shell_cmd"] }],
    world: {
      approvers: { telegram: ["requester", "olga", "eve"] },
      approvals: { quorum: { shell_cmd: 2 } } as never,
    },
  });
  cleanups.push(() => harness.close());
  return harness;
}

function echoThenSay() {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `final: ${last.text.replace(/\s+/g, " ").trim()}` };
    return { text: "Checking.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: ["quorum"] } }] };
  });
}

describePostgres("a quorum decided across two service processes (PostgreSQL)", (serverUrl) => {
  it("one vote through each process: the second meets the quorum, the call runs once", async () => {
    const database = await createPostgresDatabase(serverUrl());
    cleanups.push(() => database.drop());
    const one = await serviceOn(database.url, echoThenSay());
    await one.say("@alice run it", { user: "ana" });
    await one.waitFor(async () => (await one.store.listApprovals({ chatKey, states: ["pending"] })).length === 1);
    const [approval] = await one.store.listApprovals({ chatKey });
    const two = await serviceOn(database.url, echoThenSay());

    expect((await one.click(approval?.id ?? "", "once", { user: "ana" })).status).toBe("not-allowed");
    expect(await one.click(approval?.id ?? "", "once", { user: "olga" })).toEqual({
      status: "decided",
      text: "Counted: 1 of 2: olga. It runs after 1 more approval.",
    });
    expect(await two.click(approval?.id ?? "", "once", { user: "eve" })).toEqual({
      status: "decided",
      text: "Approved once.",
    });
    await one.waitFor(async () =>
      (await one.store.listMessages(chatKey)).some((message) => message.text.startsWith("final:")),
    );
    expect(await one.store.getApproval(approval?.id ?? "")).toMatchObject({
      state: "approved",
      decidedById: "eve",
      decidedByName: "olga, eve",
    });
    const calls = await one.store.listToolCalls({ turnId: approval?.turnId ?? "" });
    const results = await one.store.listToolResults(calls.map((call) => call.id));
    expect(results.map((result) => result.kind)).toEqual(["ok"]);
  });

  it("two votes at the same moment, one through each process: the quorum is met once, never missed", async () => {
    const database = await createPostgresDatabase(serverUrl());
    cleanups.push(() => database.drop());
    const one = await serviceOn(database.url, echoThenSay());
    await one.say("@alice run it", { user: "ana" });
    await one.waitFor(async () => (await one.store.listApprovals({ chatKey, states: ["pending"] })).length === 1);
    const [approval] = await one.store.listApprovals({ chatKey });
    const two = await serviceOn(database.url, echoThenSay());
    const answers = await Promise.all([
      one.click(approval?.id ?? "", "once", { user: "olga" }),
      two.click(approval?.id ?? "", "once", { user: "eve" }),
    ]);
    // Either both saw both votes (one wins the decision, the other is told it is decided) or one
    // counted first and the other decided: never both merely counted.
    expect(answers.some((answer) => answer.text === "Approved once.")).toBe(true);
    expect(answers.filter((answer) => answer.text === "Approved once.")).toHaveLength(1);
    await one.waitFor(async () =>
      (await one.store.listMessages(chatKey)).some((message) => message.text.startsWith("final:")),
    );
    expect((await one.store.getApproval(approval?.id ?? ""))?.state).toBe("approved");
    expect(await one.store.listApprovalVotes(approval?.id ?? "")).toHaveLength(2);
    const calls = await one.store.listToolCalls({ turnId: approval?.turnId ?? "" });
    expect((await one.store.listToolResults(calls.map((call) => call.id))).map((result) => result.kind)).toEqual([
      "ok",
    ]);
  });
});
