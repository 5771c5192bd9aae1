import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { createLogger, redactedPaths } from "../../src/log/logger.js";

/** Every line written, parsed, with its time left out. */
function sink(): { stream: Writable; lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString("utf8"));
      done();
    },
  });
  return { stream, lines: () => chunks.join("").split("\n").filter(Boolean).map(withoutTime) };
}

function withoutTime(line: string): string {
  return line.replace(/"time":\d+,/, "");
}

const failure = Object.assign(new Error("spawn failed"), { spawnargs: ["--key", "s-1"] });

/** The same lines through the logger and through pino with the same redaction, unchanged. */
function writeAll(logger: pino.Logger): void {
  const child = logger.child({ platform: "telegram", chat: "42", agent: 'a "quoted" ágent', turn: 7, open: true });
  child.info("a plain line");
  child.info({ count: 3, ratio: 0.5, none: null, flag: false, text: "line\nbreak", big: 10n }, "values");
  child.warn({ config: { token: "t-1", apiKey: "k-1", keep: "shown" } }, "nested secrets");
  child.warn({ request: { headers: { authorization: "Bearer x" } }, token: "top" }, "headers");
  child.error({ err: failure, wrapper: { cause: { spawnargs: ["s-2"] } } }, "spawn");
  const grandchild = child.child({ settings: { password: "p-1", name: "n" }, step: 1 });
  grandchild.info({ list: [{ token: "in-array" }], symbol: Symbol("s") }, "grandchild");
  child.info(["an", "array"], "array first");
}

describe("the logger's redaction of plain values", () => {
  it("writes every line as pino with the same redaction does, secrets in objects still redacted", () => {
    const ours = sink();
    writeAll(createLogger({ level: "info", destination: ours.stream }));
    const reference = sink();
    writeAll(
      pino(
        { level: "info", redact: { paths: redactedPaths, censor: "[redacted]" }, base: { service: "roundtable" } },
        reference.stream,
      ),
    );
    const lines = ours.lines();
    expect(lines).toEqual(reference.lines());
    expect(lines).toHaveLength(7);
    const text = lines.join("\n");
    for (const secret of ["t-1", "k-1", "Bearer x", '"top"', "s-1", "s-2", "p-1"]) expect(text).not.toContain(secret);
    expect(text).toContain('"agent":"a \\"quoted\\" ágent"');
    expect(text).toContain('"keep":"shown"');
  });
});
