import { describe, expect, it } from "vitest";
import type { ModelRequest, ViewMessage } from "../model-provider.js";
import { composeReply } from "./compose-reply.js";
import { readConversation } from "./read-conversation.js";

const briefing =
  "You are alice.\n\n## The room\nYou are @alice, an agent.\nAgents here:\n- @alice (you)\n- @bob: reviews\n";
const shell = { name: "shell_cmd", description: "Run a program.", inputSchema: {} };

function reply(messages: ViewMessage[], tools = [shell]) {
  const request: ModelRequest = { model: "scripted", system: briefing, messages, tools };
  return composeReply(readConversation(request));
}

const user = (text: string): ViewMessage => ({ role: "user", text });

describe("the scripted model's rules", () => {
  it("turns requests into shell_cmd calls: list, run `…`, show a file", () => {
    expect(reply([user("ana: @alice list the files")]).toolCalls).toEqual([
      { name: "shell_cmd", args: { command: "ls", args: ["-la"] } },
    ]);
    expect(reply([user("ana: @alice run `date -u`")]).toolCalls).toEqual([
      { name: "shell_cmd", args: { command: "date", args: ["-u"] } },
    ]);
    expect(reply([user("ana: @alice show notes.txt")]).toolCalls).toEqual([
      { name: "shell_cmd", args: { command: "cat", args: ["notes.txt"] } },
    ]);
    // Without the tool it says what it can do instead.
    expect(reply([user("ana: @alice list the files")], []).toolCalls).toEqual([]);
  });

  it("answers from a tool's result: the output, a failure, or a refusal", () => {
    const asked: ViewMessage[] = [
      user("ana: @alice list the files"),
      { role: "assistant", text: "Let me look.", toolCalls: [{ id: "c1", name: "shell_cmd", argumentsJson: "{}" }] },
    ];
    const result = (text: string): ViewMessage[] => [
      ...asked,
      { role: "tool", toolCallId: "c1", toolName: "shell_cmd", text },
    ];
    expect(reply(result("exit code: 0\nstdout:\na.txt\nb.txt\nstderr: (empty)")).text).toBe(
      "Here is what it printed:\n\n```\na.txt\nb.txt\n```",
    );
    expect(reply(result("exit code: 2\nstdout: (empty)\nstderr:\nno such file")).text).toContain(
      "failed (exit code 2)",
    );
    expect(reply(result("denied by ana: not now")).text).toBe("That did not run: denied by ana: not now");
  });

  it("asks another agent, and reports its answer to the person who asked", () => {
    const question = reply([user("ana: @alice ask @bob whether the plan is fine")]);
    expect(question).toEqual({ text: "@bob ana asks: the plan is fine", toolCalls: [] });
    const answered = reply([
      user("ana: @alice ask @bob whether the plan is fine"),
      { role: "assistant", text: question.text, toolCalls: [] },
      user("bob: @alice Looks good to me."),
    ]);
    expect(answered.text).toBe("@ana bob says: Looks good to me.");
  });

  it("answers another agent's question plainly (the world addresses it back)", () => {
    const text = reply([user("bob: @alice what do you think?")], []).text;
    expect(text.startsWith("@")).toBe(false);
    expect(text).toContain("what do you think");
  });
});
