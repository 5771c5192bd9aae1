/**
 * Whether agents must stop: `agentTurnsSinceHuman` agent turns have been taken in the chat
 * since the last human message and the next one would exceed `turnLimit` (config: at least 1).
 */
export function turnLimitReached(agentTurnsSinceHuman: number, turnLimit: number): boolean {
  return agentTurnsSinceHuman >= turnLimit;
}

/**
 * What the world says when the turn limit stops the agents, addressed to the humans of the
 * conversation (names with or without `@`, each once); with none, addressed to nobody.
 */
export function turnLimitNotice(humans: readonly string[], turnLimit: number): string {
  const names = [...new Set(humans.map((human) => human.replace(/^@/, "").trim()).filter((name) => name !== ""))];
  const turns = turnLimit === 1 ? "1 turn" : `${turnLimit} turns`;
  const body = `the agents have taken ${turns} without a human message and are stopping here. Address one of them to continue.`;
  if (names.length === 0) return body.charAt(0).toUpperCase() + body.slice(1);
  return `${names.map((name) => `@${name}`).join(" ")} ${body}`;
}
