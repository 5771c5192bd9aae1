import { describe, expect, it } from "vitest";
import { KeyedSerializer } from "./keyed-serializer.js";

describe("KeyedSerializer", () => {
  it("runs work of one key one after another, other keys beside it, and goes on after a failure", async () => {
    const serializer = new KeyedSerializer();
    const order: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = serializer.run("a", async () => {
      order.push("a1 start");
      await gate;
      order.push("a1 end");
      throw new Error("a1 failed");
    });
    const second = serializer.run("a", async () => {
      order.push("a2");
      return 2;
    });
    const other = serializer.run("b", async () => {
      order.push("b");
      return "b";
    });
    expect(await other).toBe("b");
    release();
    await expect(first).rejects.toThrow("a1 failed");
    expect(await second).toBe(2);
    expect(order).toEqual(["a1 start", "b", "a1 end", "a2"]);
  });
});
