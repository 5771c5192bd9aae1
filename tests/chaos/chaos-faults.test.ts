import { afterEach, describe, expect, it } from "vitest";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { type FaultTargets, makeFault } from "./chaos-faults.js";

/**
 * Telegram's 429s and 5xx are a window of time. Refusals left armed after a fault's window
 * waited for the next send whenever it came: at a run's end the one answer still being sent
 * took every later fault's refusals and never got through before the harness gave up (issue 37).
 */
describe("chaos faults: Telegram refusals", () => {
  let fake: FakeTelegramApi | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  for (const kind of ["telegram-429", "telegram-5xx"] as const) {
    it(`${kind}: the refusals nobody met end with the fault's window`, async () => {
      const telegram = await FakeTelegramApi.start([{ token: "1:t", username: "bot" }]);
      fake = telegram;
      telegram.addChat({ id: -100, type: "group", title: "g" });
      const targets: FaultTargets = {
        telegram: {
          refuse: (failure, times) => telegram.failNext("sendMessage", failure, { times }),
          endRefusals: () => void telegram.clearFailures("sendMessage"),
          reset: () => undefined,
        },
        kill: async () => undefined,
      };
      await makeFault(kind, targets);
      const response = await fetch(`${telegram.apiRoot}/bot1:t/sendMessage`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ chat_id: -100, text: "after the outage" }),
      });
      expect(((await response.json()) as { ok: boolean }).ok).toBe(true);
    }, 15_000);
  }
});
