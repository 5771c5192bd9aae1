import { DiscordAPIError, HTTPError } from "discord.js";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log/logger.js";
import { outcomeUnknown, withRestRetries } from "./rest-retries.js";

const body = { body: undefined, files: undefined };
const badGateway = () => new HTTPError(502, "Bad Gateway", "POST", "http://127.0.0.1/api/v10/webhooks/1/t", body);
const missingAccess = () =>
  new DiscordAPIError(
    { code: 50001, message: "Missing Access" },
    50001,
    403,
    "POST",
    "http://127.0.0.1/api/v10/x",
    body,
  );

function recordingClock() {
  const sleeps: number[] = [];
  return { sleeps, clock: { now: () => 0, sleep: async (ms: number) => void sleeps.push(ms) } };
}

describe("Discord REST retries", () => {
  it("a 5xx or a failed connection has an unknown outcome; a 4xx refusal does not", () => {
    expect(outcomeUnknown(badGateway())).toBe(true);
    expect(outcomeUnknown(Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNRESET" } }))).toBe(true);
    expect(outcomeUnknown(missingAccess())).toBe(false);
  });

  it("sends an idempotent call again with backoff; reads back before sending a webhook post again", async () => {
    const { sleeps, clock } = recordingClock();
    let tries = 0;
    const flaky = async () => {
      tries += 1;
      if (tries < 3) throw badGateway();
      return "ok";
    };
    await expect(withRestRetries("edit message", flaky, "idempotent", { clock, logger: silentLogger() })).resolves.toBe(
      "ok",
    );
    expect(sleeps).toEqual([500, 1_000]);

    let posts = 0;
    const post = async () => {
      posts += 1;
      throw badGateway();
    };
    const recover = async () => ({ id: "42" });
    await expect(
      withRestRetries("execute webhook", post, { recover }, { clock, logger: silentLogger() }),
    ).resolves.toEqual({ id: "42" });
    expect(posts).toBe(1);
  });

  it("never sends again what may not be sent twice, nor a refusal", async () => {
    const { clock } = recordingClock();
    let tries = 0;
    const post = async () => {
      tries += 1;
      throw badGateway();
    };
    await expect(
      withRestRetries("interaction callback", post, "never", { clock, logger: silentLogger() }),
    ).rejects.toThrow(HTTPError);
    expect(tries).toBe(1);
    let refused = 0;
    const refuse = async () => {
      refused += 1;
      throw missingAccess();
    };
    await expect(
      withRestRetries("edit message", refuse, "idempotent", { clock, logger: silentLogger() }),
    ).rejects.toThrow(DiscordAPIError);
    expect(refused).toBe(1);
  });
});
