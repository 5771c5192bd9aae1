// Deny a tool outside a time window (docs/hooks.md): `kubectl` through shell_cmd only on weekdays
// from 9:00 to 18:00 UTC. Outside it every call of the step gets `denied: …` and the turn ends
// with that message; inside it the configured approval policy applies as usual.
import type { OnEvent, RoundtableEvent } from "roundtable/hooks";

/** Whether `at` falls on a weekday between 9:00 and 18:00 UTC. */
export function inOfficeHours(at: Date): boolean {
  const day = at.getUTCDay();
  const hour = at.getUTCHours();
  return day >= 1 && day <= 5 && hour >= 9 && hour < 18;
}

/** Why the event's calls are denied at `at`, or undefined when they may go on. */
export function officeHoursDenial(event: RoundtableEvent, at: Date): string | undefined {
  if (event.type !== "tool_call" || inOfficeHours(at)) return undefined;
  const kubectl = event.toolCalls.some((call) => {
    const args = call.arguments as { command?: unknown } | undefined;
    return call.name === "shell_cmd" && typeof args?.command === "string" && /(^|\/)kubectl$/.test(args.command);
  });
  return kubectl ? "kubectl runs only on weekdays between 9:00 and 18:00 UTC." : undefined;
}

export const onEvent: OnEvent = (event, respond, context) => {
  const denial = officeHoursDenial(event, new Date());
  if (denial === undefined) return undefined;
  context.log.info(
    { agent: event.type === "tool_call" ? event.agent : undefined },
    "kubectl outside office hours denied",
  );
  respond({ text: denial });
  return undefined;
};
