import { expect } from "vitest";
import type { ChaosReport, ChaosSettings } from "./chaos-run.js";

/**
 * The suite's short Telegram chaos (the long one is `npm run chaos`): four group chats, bursts
 * of 1 to 3 messages back to back to alice or bob (one burst in three ends with a tool request,
 * approved at once), a model that answers the earliest question its request shows open, and a
 * SIGKILL 1 to 2 s after every process is ready, three times.
 */
export const telegramShort: Omit<ChaosSettings, "databaseUrl" | "processes"> = {
  chats: 4,
  messagesPerChat: 0,
  untilKills: 3,
  toolEvery: 3,
  killEveryMs: [1_000, 2_000],
  pauseFromReady: true,
  windowMs: 250,
  log: (line) => process.stderr.write(`chaos: ${line}\n`),
};

export function describeTelegramRun(report: ChaosReport): string {
  return (
    `${report.sent} messages, ${report.kills} kills, ${report.toolRuns} tool runs; answers shown twice: ` +
    `${report.doubledInWindow.length} in the platform's window, ${report.doubledUnexplained.length} unexplained; ` +
    `longest wait after a restart ${report.maxWaitAfterRestartMs} ms`
  );
}

/**
 * Nothing lost, nothing doubled but through Telegram's window (the sender SIGKILLed within
 * 250 ms of Telegram's answer, its id never stored: docs/architecture.md, "The window that
 * remains"), no tool run twice or dropped, each chat's answers in the order of its messages,
 * and every answer written by the turn of the message it answers (a turn whose view showed an
 * answered question as open would answer that one instead). Waits are reported, not asserted.
 */
export function expectTelegramRunSound(report: ChaosReport): void {
  expect(report.sent).toBeGreaterThan(0);
  expect(report.kills).toBeGreaterThanOrEqual(3);
  expect(report).toMatchObject({
    lost: [],
    doubledUnexplained: [],
    toolsDoubled: [],
    toolsLost: [],
    halfWritten: [],
    outOfOrder: [],
    wrongTurn: [],
  });
}

/**
 * A short run with faults beside kills (`faults`, in turn): as sound as a kills-only run, every
 * fault made, and the service never exited by itself.
 */
export function expectFaultRunSound(report: ChaosReport, faults: number): void {
  expect(report.sent).toBeGreaterThan(0);
  expect(report.faults.filter((fault) => fault.detail !== "failed").length).toBeGreaterThanOrEqual(faults);
  expect(report).toMatchObject({
    lost: [],
    doubledUnexplained: [],
    toolsDoubled: [],
    toolsLost: [],
    halfWritten: [],
    outOfOrder: [],
    wrongTurn: [],
  });
}
