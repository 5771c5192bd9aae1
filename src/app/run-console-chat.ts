import { ConsoleAdapter } from "../../channels/console/adapter.js";
import { migrateDatabase } from "../storage/migrate.js";
import { openStore } from "../storage/open-store.js";
import { buildParts } from "./build-parts.js";
import { inFlightOf } from "../world/queue/step-slots.js";
import { Roundtable } from "./roundtable.js";
import type { ConsoleChatOptions } from "./service-entry.js";

/**
 * `roundtable chat`: the console channel. Lines from `input` are the local user's messages
 * (the local user is an approver); every message of the chat is printed to `output`. At the end
 * of the input it waits until no turn is running (a turn parked on an approval is not), then
 * resolves with exit code 0.
 */
export async function runConsoleChat(options: ConsoleChatOptions): Promise<number> {
  const { config, logger, output } = options;
  const worldName = options.world ?? config.worlds[0]?.name;
  const world = config.worlds.find((candidate) => candidate.name === worldName);
  if (!world) {
    const known = config.worlds.map((candidate) => candidate.name).join(", ") || "none";
    output.write(`roundtable: no world named "${worldName ?? ""}" (worlds: ${known})\n`);
    return 2;
  }
  const user = options.as ?? process.env.USER ?? "you";
  await migrateDatabase({ databaseUrl: options.databaseUrl, logger });
  const opened = await openStore({ databaseUrl: options.databaseUrl, logger });
  const queue = opened.createQueue({ concurrency: inFlightOf(config.queue) });
  let roundtable: Roundtable | undefined;
  const adapter = new ConsoleAdapter({
    world: world.name,
    user,
    input: options.input,
    output,
    interactive: options.interactive ?? false,
    banner: chatBanner(world, user),
    settle: () => roundtable?.whenIdle() ?? Promise.resolve(),
  });
  const parts = await buildParts(config, logger, { state: { databaseUrl: options.databaseUrl } });
  roundtable = new Roundtable({
    ...parts,
    config,
    store: opened.store,
    queue,
    logger,
    channels: [adapter],
    stopGraceMs: chatStopGraceMs,
  });
  const running = roundtable;
  let interrupted = false;
  try {
    await running.start();
    const conversation = adapter.finished.then(() => running.whenIdle());
    const stop = (options.stopRequested ?? new Promise<never>(() => undefined)).then(() => {
      interrupted = true;
    });
    await Promise.race([conversation, stop]);
  } finally {
    // On Ctrl-C too: a tool still running is ended (its process group), never left behind.
    await running.stop();
    await opened.close();
    // Interrupted with the terminal (or pipe) still open: stop reading it, so the process can end.
    if (interrupted) options.input.pause();
  }
  return interrupted ? 130 : 0;
}

/** The first lines of an interactive chat: where you are, who is there, how to talk to them. */
export function chatBanner(
  world: { name: string; agents: readonly string[]; defaultAgent?: string | undefined },
  user: string,
): string {
  const agents = world.agents.map((agent) => `@${agent}`).join(", ") || "none";
  const unaddressed =
    world.defaultAgent === undefined
      ? "start a line with @name to talk to an agent"
      : `a line with no @name goes to @${world.defaultAgent}`;
  return (
    `roundtable chat: world ${world.name} (agents: ${agents}), you are ${user}.\n` +
    `Type a message and press Enter; ${unaddressed}. /help lists the commands, Ctrl-D leaves.`
  );
}

/**
 * How long running steps may finish after Ctrl-C before they are cut (and their tools ended):
 * short, since someone at the terminal asked to stop; a cut step runs again next time.
 */
const chatStopGraceMs = 2000;
