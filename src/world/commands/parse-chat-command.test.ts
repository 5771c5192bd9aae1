import { describe, expect, it } from "vitest";
import { parseChatCommand } from "./parse-chat-command.js";

describe("parseChatCommand", () => {
  it("reads a command on its own, with arguments, in any case, with surrounding space", () => {
    expect(parseChatCommand("/stop")).toEqual({ kind: "command", name: "stop", args: [] });
    expect(parseChatCommand("  /Approvals \n")).toEqual({ kind: "command", name: "approvals", args: [] });
    expect(parseChatCommand("/stop @alice bob")).toEqual({ kind: "command", name: "stop", args: ["@alice", "bob"] });
  });

  it("takes /cmd@bot for this bot's names and marks other bots' commands", () => {
    expect(parseChatCommand("/help@Roundtable_Bot", ["roundtable_bot"])).toEqual({
      kind: "command",
      name: "help",
      args: [],
    });
    expect(parseChatCommand("/help@other_bot", ["roundtable_bot"])).toEqual({
      kind: "other-bot",
      name: "help",
      bot: "other_bot",
    });
  });

  it("leaves ordinary messages alone: unknown commands, text before, a second line, a path", () => {
    expect(parseChatCommand("/deploy now")).toBeUndefined();
    expect(parseChatCommand("please /stop")).toBeUndefined();
    expect(parseChatCommand("/stop\nand explain")).toBeUndefined();
    expect(parseChatCommand("/stop/now")).toBeUndefined();
    expect(parseChatCommand("@alice /stop")).toBeUndefined();
    expect(parseChatCommand("")).toBeUndefined();
  });
});
