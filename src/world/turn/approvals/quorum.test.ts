import { describe, expect, it } from "vitest";
import { progressWords, quorumFor } from "./quorum.js";

describe("quorumFor", () => {
  it("takes the exact tool name first, then its MCP server's `<server>__*`, else none", () => {
    const world = { quorum: { shell_cmd: 2, notes__add: 3, "notes__*": 1 } };
    expect(quorumFor(world, "shell_cmd")).toBe(2);
    expect(quorumFor(world, "notes__add")).toBe(3);
    expect(quorumFor(world, "notes__delete")).toBe(1);
    expect(quorumFor(world, "files__read")).toBeUndefined();
    expect(quorumFor(world, "__x")).toBeUndefined();
    expect(quorumFor({}, "shell_cmd")).toBeUndefined();
  });
});

describe("progressWords", () => {
  it("counts and names who approved", () => {
    expect(progressWords(2, [])).toBe("0 of 2");
    expect(progressWords(2, [{ voterName: "Ana" }])).toBe("1 of 2: Ana");
    expect(progressWords(3, [{ voterName: "Ana" }, { voterName: "Ben" }])).toBe("2 of 3: Ana, Ben");
  });
});
