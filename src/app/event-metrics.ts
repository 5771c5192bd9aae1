import type { Metrics } from "../metrics/metrics.js";
import { standsForApproval } from "../world/events.js";
import type { EventListener } from "../world/outbox.js";

/** Counts world events for `/metrics`, by listening to the outbox (the engine knows nothing of it). */
export function eventMetrics(metrics: Metrics): EventListener {
  const messages = metrics.counter("roundtable_messages_total", "Messages stored, by author kind and platform.");
  const turns = metrics.counter("roundtable_turns_ended_total", "Agent turns ended, by reason.");
  const approvals = metrics.counter("roundtable_approvals_requested_total", "Approval cards requested.");
  const decisions = metrics.counter("roundtable_approvals_decided_total", "Approvals closed, by outcome.");
  const results = metrics.counter("roundtable_tool_results_total", "Tool results, by kind.");
  return (event) => {
    switch (event.type) {
      case "message":
      case "system":
        messages.inc({ author: event.message.author.kind, platform: event.chat.platform });
        return;
      case "turn-ended":
        turns.inc({ reason: event.reason });
        return;
      // Once per approval, not once per copy of its card (an approver's DM, the approvals chat).
      case "approval-requested":
        if (standsForApproval(event)) approvals.inc({ platform: event.chat.platform });
        return;
      case "approval-decided":
        if (standsForApproval(event)) decisions.inc({ state: event.outcome.state });
        return;
      case "tool-result":
        results.inc({ kind: event.kind });
        return;
      case "tool-calls":
      case "approval-updated":
      case "stream":
        return;
    }
  };
}
