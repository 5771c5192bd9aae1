/**
 * `npm run bench`: figures for the world engine on the embedded database (SQLite), with a
 * scripted model so that only Roundtable's own work is measured. Prints a table; asserts nothing.
 */
import { performance } from "node:perf_hooks";
import { createHarness } from "../tests/world/harness.js";
import { ScriptedProvider } from "../tests/fakes/scripted-provider.js";

interface Figure {
  name: string;
  count: number;
  seconds: number;
  unit: string;
}

async function messagesThroughTurns(chats: number, perChat: number): Promise<Figure> {
  const alice = new ScriptedProvider(() => ({ text: "ok" }));
  const harness = await createHarness({ agents: [{ name: "alice", provider: alice }], concurrency: 8 });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: chats }, async (_, chat) => {
      for (let index = 0; index < perChat; index++) await harness.say(`@alice ${index}`, { channel: `c${chat}` });
    }),
  );
  await harness.idle();
  const seconds = (performance.now() - started) / 1000;
  await harness.close();
  return {
    name: `message → turn → answer (${chats} chats × ${perChat})`,
    count: chats * perChat,
    seconds,
    unit: "answers/s",
  };
}

async function approvalRoundTrips(count: number): Promise<Figure> {
  const alice = new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: "done" };
    return { toolCalls: [{ name: "shell_cmd", args: { command: "true" } }] };
  });
  const harness = await createHarness({
    agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
    platform: "telegram",
  });
  let seconds = 0;
  for (let index = 0; index < count; index++) {
    await harness.say(`@alice run ${index}`, { user: "ana", channel: `c${index}` });
    await harness.idle();
    const card = harness.channel.cards().at(-1);
    const started = performance.now();
    await harness.click(card?.card.approvalId ?? "", "once", { user: "ana", channel: `c${index}` });
    await harness.idle();
    seconds += (performance.now() - started) / 1000;
  }
  await harness.close();
  return { name: "click → tool run → next model call → answer", count, seconds, unit: "round trips/s" };
}

async function duplicateDeliveries(count: number): Promise<Figure> {
  const harness = await createHarness({
    agents: [{ name: "alice", provider: new ScriptedProvider(() => ({ text: "ok" })) }],
  });
  await harness.say("@alice hi", { id: "dup" });
  await harness.idle();
  const started = performance.now();
  for (let index = 0; index < count; index++) await harness.say("@alice hi", { id: "dup" });
  const seconds = (performance.now() - started) / 1000;
  await harness.close();
  return { name: "duplicate delivery dropped at ingress", count, seconds, unit: "drops/s" };
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= "warn";
  const figures = [await messagesThroughTurns(20, 10), await approvalRoundTrips(30), await duplicateDeliveries(500)];
  const rows = figures.map((figure) => [
    figure.name,
    String(figure.count),
    `${figure.seconds.toFixed(2)} s`,
    `${(figure.count / figure.seconds).toFixed(1)} ${figure.unit}`,
    `${((figure.seconds / figure.count) * 1000).toFixed(2)} ms each`,
  ]);
  const header = ["benchmark (SQLite, scripted model)", "n", "total", "rate", "mean"];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ");
  process.stdout.write(`${line(header)}\n${line(widths.map((width) => "-".repeat(width)))}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
