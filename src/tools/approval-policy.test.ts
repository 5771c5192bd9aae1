import { describe, expect, it } from "vitest";
import { toolsConfigSchema } from "../config/schema.js";
import { argumentsHash, decidePolicy, previewArguments } from "./approval-policy.js";

const tools = toolsConfigSchema.parse({
  mcpServers: { notes: { command: "notes" }, search: { url: "http://127.0.0.1:1/mcp" } },
  approval: { notes__list: "never", "search__*": "never", search__delete: "required" },
  rules: [
    { tool: "shell_cmd", match: { command: "ls|pwd|cat" }, action: "allow" },
    { tool: "shell_cmd", match: { command: "git", args: "status( .*)?" }, action: "allow" },
    { tool: "shell_cmd", match: { command: "git", args: "--force" }, action: "deny" },
    { tool: "shell_cmd", match: { command: "rm" }, action: "deny" },
    { tool: "notes__*", match: { text: "secret" }, action: "deny" },
    { tool: "notes__add", match: {}, action: "allow" },
    { tool: "shell_cmd", match: { command: "^ls$" }, action: "deny" },
  ],
});

describe("decidePolicy", () => {
  const table: [string, Record<string, unknown>, "run" | "ask" | "block", string][] = [
    // Required by default.
    ["shell_cmd", { command: "make" }, "ask", "shell_cmd needs approval (required by default)"],
    ["notes__remove", { id: 1 }, "ask", "notes__remove needs approval (required by default)"],
    // tools.approval: exact name, whole server, exact beats the server's wildcard.
    ["notes__list", {}, "run", "notes__list runs without approval (tools.approval notes__list: never)"],
    ["search__query", { q: "x" }, "run", "search__query runs without approval (tools.approval search__*: never)"],
    ["search__delete", {}, "ask", "search__delete needs approval (tools.approval search__delete: required)"],
    // allow rules match the whole value; arrays are joined with spaces.
    ["shell_cmd", { command: "pwd" }, "run", "allowed by rule 1 (shell_cmd command=/ls|pwd|cat/)"],
    ["shell_cmd", { command: "lsblk" }, "ask", "shell_cmd needs approval (required by default)"],
    [
      "shell_cmd",
      { command: "git", args: ["status", "--short"] },
      "run",
      "allowed by rule 2 (shell_cmd command=/git/ args=/status( .*)?/)",
    ],
    ["shell_cmd", { command: "git", args: ["push"] }, "ask", "shell_cmd needs approval (required by default)"],
    // All match entries must match; a missing argument never allows, and a deny rule for this
    // tool that names it cannot be checked: asked for (fail closed), saying so.
    [
      "shell_cmd",
      { command: "git" },
      "ask",
      "shell_cmd needs approval: rule 3 (shell_cmd command=/git/ args=/--force/) could not be checked (the argument args is absent)",
    ],
    // deny rules match anywhere, and deny wins over allow (rule 7 denies ls although rule 1 allows it).
    [
      "shell_cmd",
      { command: "git", args: ["push", "--force"] },
      "block",
      "blocked by rule 3 (shell_cmd command=/git/ args=/--force/)",
    ],
    ["shell_cmd", { command: "ls" }, "block", "blocked by rule 7 (shell_cmd command=/^ls$/)"],
    ["shell_cmd", { command: "rm", args: ["-rf", "x"] }, "block", "blocked by rule 4 (shell_cmd command=/rm/)"],
    // A server-wide rule, and an allow rule with an empty match (always).
    ["notes__add", { text: "my secret plan" }, "block", "blocked by rule 5 (notes__* text=/secret/)"],
    ["notes__add", { text: "shopping" }, "run", "allowed by rule 6 (notes__add)"],
  ];

  it.each(table)("%s %j → %s", (tool, args, action, reason) => {
    // A rule that could not be checked marks the ask `unchecked` (no stored rule may then allow it).
    const unchecked = /could not be checked/.test(String(reason)) ? { unchecked: true } : {};
    expect(decidePolicy(tool, args, tools)).toEqual({ action, reason, ...unchecked });
  });

  it("fails closed on a pattern that is not a regular expression", () => {
    const broken = toolsConfigSchema.parse({
      rules: [
        { tool: "shell_cmd", match: { command: "(" }, action: "allow" },
        { tool: "notes__add", match: { text: "[" }, action: "deny" },
      ],
    });
    expect(decidePolicy("shell_cmd", { command: "(" }, broken).action).toBe("ask");
    expect(decidePolicy("notes__add", { text: "anything" }, broken).action).toBe("block");
  });

  it("matches numbers and objects as JSON text", () => {
    const numeric = toolsConfigSchema.parse({
      rules: [{ tool: "notes__get", match: { id: "[0-9]+" }, action: "allow" }],
    });
    expect(decidePolicy("notes__get", { id: 42 }, numeric).action).toBe("run");
    expect(decidePolicy("notes__get", { id: { $gt: 1 } }, numeric).action).toBe("ask");
  });
});

describe("rule patterns in linear time", () => {
  it("a catastrophic-backtracking pattern on a long argument returns at once", () => {
    const redos = toolsConfigSchema.parse({
      rules: [
        { tool: "shell_cmd", match: { command: "(a+)+$" }, action: "deny" },
        { tool: "shell_cmd", match: { command: "(a|a)*b" }, action: "allow" },
      ],
    });
    // With backtracking regular expressions this input takes longer than any test timeout.
    const command = `${"a".repeat(9_000)}!`;
    expect(decidePolicy("shell_cmd", { command }, redos)).toEqual({
      action: "ask",
      reason: "shell_cmd needs approval (required by default)",
    });
    expect(decidePolicy("shell_cmd", { command: "aaa" }, redos).action).toBe("block");
    expect(decidePolicy("shell_cmd", { command: "aaab" }, redos).action).toBe("run");
  });

  it("a value over 10,000 characters is never allowed by a rule: asked for, saying the rule could not be checked", () => {
    const allowAll = toolsConfigSchema.parse({
      rules: [{ tool: "notes__add", match: { text: ".*" }, action: "allow" }],
    });
    expect(decidePolicy("notes__add", { text: "x".repeat(10_000) }, allowAll).action).toBe("run");
    expect(decidePolicy("notes__add", { text: "x".repeat(10_001) }, allowAll)).toEqual({
      action: "ask",
      reason:
        "notes__add needs approval: rule 1 (notes__add text=/.*/) could not be checked (text is 10001 characters long; rules check at most 10000)",
      unchecked: true,
    });
    const neverAsk = toolsConfigSchema.parse({
      approval: { notes__add: "never" },
      rules: [{ tool: "notes__add", match: { text: "secret" }, action: "deny" }],
    });
    // A deny rule that cannot read the whole value does not let it run unasked either.
    expect(decidePolicy("notes__add", { text: `${"x".repeat(10_001)}secret` }, neverAsk).action).toBe("ask");
    expect(decidePolicy("notes__add", { text: "fine" }, neverAsk).action).toBe("run");
  });

  it("a deny rule whose argument is absent fails closed: the call is asked for, never run by a rule or `never`", () => {
    const config = toolsConfigSchema.parse({
      approval: { shell_cmd: "never" },
      rules: [
        { tool: "shell_cmd", match: { cwd: "^/" }, action: "deny" },
        { tool: "shell_cmd", match: { command: "ls" }, action: "allow" },
        { tool: "notes__*", match: { text: "secret" }, action: "deny" },
      ],
    });
    expect(decidePolicy("shell_cmd", { command: "ls", cwd: "/etc" }, config).action).toBe("block");
    expect(decidePolicy("shell_cmd", { command: "ls", cwd: "sub" }, config).action).toBe("run");
    expect(decidePolicy("shell_cmd", { command: "ls" }, config)).toEqual({
      action: "ask",
      reason: "shell_cmd needs approval: rule 1 (shell_cmd cwd=/^//) could not be checked (the argument cwd is absent)",
      unchecked: true,
    });
    // A server-wide rule applies only to the server's tools that have its argument.
    expect(decidePolicy("notes__list", {}, config).action).toBe("ask");
    expect(decidePolicy("notes__list", {}, { ...config, approval: { notes__list: "never" } }).action).toBe("run");
  });
});

describe("argumentsHash", () => {
  it("is the same whatever order the keys came in, at every depth", () => {
    const one = argumentsHash("shell_cmd", { command: "ls", options: { a: 1, b: [1, { y: 2, x: 1 }] } });
    const two = argumentsHash("shell_cmd", { options: { b: [1, { x: 1, y: 2 }], a: 1 }, command: "ls" });
    expect(one).toBe(two);
    expect(one).toMatch(/^[0-9a-f]{64}$/);
  });

  it("differs by tool, by value and by array order", () => {
    const base = argumentsHash("shell_cmd", { command: "ls", args: ["a", "b"] });
    expect(argumentsHash("notes__add", { command: "ls", args: ["a", "b"] })).not.toBe(base);
    expect(argumentsHash("shell_cmd", { command: "ls", args: ["b", "a"] })).not.toBe(base);
    expect(argumentsHash("shell_cmd", { command: "ls", args: ["a", "b "] })).not.toBe(base);
  });
});

describe("previewArguments", () => {
  it("pretty-prints short arguments whole", () => {
    expect(previewArguments({ command: "ls", args: ["-l"] })).toBe(
      '{\n  "command": "ls",\n  "args": [\n    "-l"\n  ]\n}',
    );
  });

  it("cuts long arguments to maxChars with an ellipsis", () => {
    const preview = previewArguments({ text: "x".repeat(500) }, 40);
    expect(preview).toHaveLength(40);
    expect(preview.endsWith("…")).toBe(true);
    expect(preview.startsWith('{\n  "text": "xxx')).toBe(true);
  });
});
