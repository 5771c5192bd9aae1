import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { parseInitReport, processIsolation } from "./process-namespace.js";
import { runProcess } from "./run-process.js";

describe("parseInitReport", () => {
  it("reads the start and the ending", () => {
    expect(parseInitReport('{"started":true}\n{"exitCode":null,"signal":"SIGTERM"}\n')).toEqual({
      started: true,
      ending: { exitCode: null, signal: "SIGTERM" },
    });
  });

  it("turns a start error back into an errno error", () => {
    const report = parseInitReport(
      '{"error":{"code":"ENOENT","errno":-2,"syscall":"spawn nope","path":"nope","message":"spawn nope ENOENT"}}\n',
    );
    expect(report.started).toBe(false);
    expect(report.startError?.message).toBe("spawn nope ENOENT");
    expect(report.startError?.code).toBe("ENOENT");
  });

  it("leaves out what does not parse (a report cut short)", () => {
    expect(parseInitReport('{"started":true}\n{"exitCo')).toEqual({ started: true });
    expect(parseInitReport("")).toEqual({ started: false });
  });
});

const host = processIsolation();

describe.skipIf(host.kind === "marker")("a namespace that cannot be made", () => {
  it("is a start failure that says what unshare said, not the command's exit", async () => {
    if (host.kind === "marker") return;
    const start = await runProcess({
      command: "true",
      args: [],
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      timeoutMs: 20_000,
      maxOutputBytes: 4096,
      signal: new AbortController().signal,
      killGraceMs: 300,
      isolation: { ...host, flags: ["--no-such-unshare-flag", ...host.flags] },
    });
    expect(start.started).toBe(false);
    if (start.started) return;
    expect(start.error.message).toMatch(
      /^its PID namespace could not be made \(\S*unshare: unrecognized option '--no-such-unshare-flag'\)$/,
    );
  });
});
