import { chatKey } from "../chat-ref.js";
import { notRoutedReason } from "../ingress/ingress.js";
import { chatJob, jobKey } from "../jobs.js";
import { shouldDeliver } from "../outbox.js";
import type { WorldContext } from "../world-context.js";

/** How far back the sweep looks: younger than the queue keeps finished jobs' keys (7 days). */
const sweepAgeMs = 24 * 60 * 60 * 1000;

/**
 * At start: queue again the steps a crash may have lost between storing something and queueing
 * what follows it (a delivery, the routing of a person's message). Adding a job whose key is
 * known changes nothing, and both steps are idempotent, so this only fills real gaps.
 */
export async function recoverLostSteps(context: WorldContext, window = 200): Promise<number> {
  const { store, queue, worlds, clock, logger } = context;
  const since = clock().getTime() - sweepAgeMs;
  let queued = 0;
  for (const event of await store.listRecentEvents(window)) {
    if (event.createdAt.getTime() < since) continue;
    const key = chatKey(event.chat);
    if (shouldDeliver(event)) {
      const payload = { kind: "deliver", seq: event.seq } as const;
      if (await queue.add({ queue: key, key: jobKey(payload), payload })) queued++;
    }
    if (event.type !== "message") continue;
    const author = event.message.author;
    const world = worlds.worldFor(event.chat);
    if ((author.kind !== "human" && author.kind !== "bot") || !world) continue;
    if (notRoutedReason(author.kind === "bot", event.message.text, world.allowBots) !== undefined) continue;
    const payload = { kind: "route", messageId: event.message.id } as const;
    if (await queue.add(chatJob(key, payload))) queued++;
  }
  if (queued > 0) logger.warn({ queued }, "queued steps that a crash had lost");
  return queued;
}
