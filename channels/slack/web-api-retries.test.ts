import { describe, expect, it } from "vitest";
import { NetworkError, PlatformApiError, type RoundtableError } from "../../src/errors/roundtable-error.js";
import { silentLogger } from "../../src/log/logger.js";
import { withWebApiRetries } from "./web-api-retries.js";

/** A clock that records its waits and ends each at once. */
function recordingClock() {
  const sleeps: number[] = [];
  return { sleeps, clock: { now: () => 0, sleep: async (ms: number) => void sleeps.push(ms) } };
}

/** A call that fails with `failures` in turn, then answers "done"; counts its tries. */
function failing(...failures: RoundtableError[]) {
  const state = { tries: 0 };
  const run = async () => {
    state.tries += 1;
    const failure = failures.shift();
    if (failure) throw failure;
    return "done";
  };
  return { state, run };
}

const rateLimited = (ms: number) =>
  new PlatformApiError("slack chat.postMessage rate limited", { method: "chat.postMessage", retryAfterMs: ms });
const lost = () => new NetworkError("slack chat.postMessage failed: statusCode = 502");

describe("withWebApiRetries", () => {
  it("waits a 429's Retry-After exactly, for any call, then sends it again", async () => {
    const { sleeps, clock } = recordingClock();
    const { state, run } = failing(rateLimited(3_000), rateLimited(1_000));
    await expect(
      withWebApiRetries("chat.postMessage", run, "never", { clock, logger: silentLogger(), retries: 5 }),
    ).resolves.toBe("done");
    expect(sleeps).toEqual([3_000, 1_000]);
    expect(state.tries).toBe(3);
  });

  it("does not wait out a Retry-After over a minute: the refusal goes to the caller", async () => {
    const { sleeps, clock } = recordingClock();
    const { run } = failing(rateLimited(120_000));
    await expect(
      withWebApiRetries("chat.update", run, "idempotent", { clock, logger: silentLogger(), retries: 5 }),
    ).rejects.toThrow(/rate limited/);
    expect(sleeps).toEqual([]);
  });

  it("sends an idempotent call again after a 5xx or a cut, backing off; never one that is not", async () => {
    const { sleeps, clock } = recordingClock();
    const again = failing(lost(), lost());
    await expect(
      withWebApiRetries("chat.update", again.run, "idempotent", { clock, logger: silentLogger(), retries: 5 }),
    ).resolves.toBe("done");
    expect(sleeps).toEqual([500, 1_000]);
    const once = failing(lost());
    await expect(
      withWebApiRetries("chat.appendStream", once.run, "never", { clock, logger: silentLogger(), retries: 5 }),
    ).rejects.toThrow(/502/);
    expect(once.state.tries).toBe(1);
  });

  it("asks recover before sending again: found, it is the answer and nothing is sent twice", async () => {
    const { clock } = recordingClock();
    const { state, run } = failing(lost());
    const recover = async () => "1800000000.000100";
    await expect(
      withWebApiRetries("chat.postMessage", run, { recover }, { clock, logger: silentLogger(), retries: 5 }),
    ).resolves.toBe("1800000000.000100");
    expect(state.tries).toBe(1);
    const notFound = failing(lost());
    await expect(
      withWebApiRetries(
        "chat.postMessage",
        notFound.run,
        { recover: async () => undefined },
        { clock, logger: silentLogger(), retries: 5 },
      ),
    ).resolves.toBe("done");
    expect(notFound.state.tries).toBe(2);
  });

  it("a refusal (ok: false) is never sent again, and retries are bounded", async () => {
    const { clock } = recordingClock();
    const refused = failing(
      new PlatformApiError("slack chat.postMessage refused: channel_not_found", { method: "chat.postMessage" }),
    );
    await expect(
      withWebApiRetries("chat.postMessage", refused.run, "idempotent", { clock, logger: silentLogger(), retries: 5 }),
    ).rejects.toThrow(/channel_not_found/);
    expect(refused.state.tries).toBe(1);
    const always = failing(lost(), lost(), lost(), lost());
    await expect(
      withWebApiRetries("chat.update", always.run, "idempotent", { clock, logger: silentLogger(), retries: 2 }),
    ).rejects.toThrow(/502/);
    expect(always.state.tries).toBe(3);
  });
});
