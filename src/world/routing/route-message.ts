import { parseAddresses } from "./parse-addresses.js";
import { resolveName } from "./resolve-name.js";

/** Who wrote the message being routed. */
export interface RouteAuthor {
  kind: "human" | "agent" | "system";
  /** The agent's name for agents; the person's name for humans. */
  name: string;
  /** The platform marks the sender as a bot that is not one of this world's agents. */
  isBot?: boolean;
  /**
   * The platform reports the message as posted by this service's own account (an echo of
   * something the world itself posted). Agents' messages as the world stores them are
   * `kind: "agent"` and do not set this.
   */
  isSelf?: boolean;
}

/** Everything routing needs to know about one message and its world. */
export interface RouteInput {
  author: RouteAuthor;
  /** Plain text in which channels have already rewritten platform mentions to `@name`. */
  text: string;
  /**
   * The names the platform marked as mentions. Not consulted: the channel has rewritten them
   * to `@name` in `text`, and only those at a paragraph start address anyone, which the
   * text alone tells. Kept so that callers may pass what they have.
   */
  mentions?: string[];
  /** The agent whose message this one is a platform reply to. */
  replyToAgent?: string;
  /** The world's agents, in configured order and spelling. */
  agents: readonly string[];
  defaultAgent?: string;
  respond: "addressed" | "all";
  /** Whether other bots' messages may start turns. */
  allowBots: boolean;
  /**
   * Names of people known in the chat. Addressing one of them (`@ana can you check?`) is
   * neither an address to an agent nor an unknown name.
   */
  people?: readonly string[];
  /** The names addressed as a policy hook set them (docs/hooks.md); absent: what the text addresses. */
  addressed?: readonly string[];
}

/** Why no agent answers a message. */
export type NoAnswerReason =
  | "system-message"
  | "own-message"
  | "bot-message"
  | "no-agents"
  | "not-addressed"
  | "addressed-to-people"
  | "no-other-agent-addressed";

/**
 * Who answers a message.
 * - `agents`: these agents answer, in this order (configured spelling). `unknown` lists the
 *   addressed names that are neither agents nor known people (lowercase); the world tells a
 *   human about them while the agents answer.
 * - `unknown`: a human addressed only names that are not agents; nobody answers and the
 *   world replies with a notice naming `known`, the agents that exist.
 * - `none`: nobody answers, for `reason`.
 */
export type RouteDecision =
  | { kind: "agents"; agents: string[]; unknown: string[] }
  | { kind: "unknown"; agents: []; unknown: string[]; known: string[] }
  | { kind: "none"; reason: NoAnswerReason };

/** Decides which agents answer a message (docs/chat.md). Pure. */
export function routeMessage(input: RouteInput): RouteDecision {
  const { author } = input;
  if (author.kind === "system") return none("system-message");
  if (author.isSelf === true) return none("own-message");
  if (author.kind === "human" && author.isBot === true && !input.allowBots) return none("bot-message");
  if (input.agents.length === 0) return none("no-agents");

  const addressed = classify(input.addressed ? [...input.addressed] : parseAddresses(input.text), input);
  if (author.kind === "agent") {
    const agents = addressed.agents.filter((agent) => agent.toLowerCase() !== author.name.toLowerCase());
    return agents.length > 0
      ? { kind: "agents", agents, unknown: addressed.unknown }
      : none("no-other-agent-addressed");
  }

  if (addressed.agents.length > 0) return { kind: "agents", agents: addressed.agents, unknown: addressed.unknown };
  if (addressed.unknown.length > 0) {
    return { kind: "unknown", agents: [], unknown: addressed.unknown, known: [...input.agents] };
  }
  if (addressed.people > 0) return none("addressed-to-people");
  return unaddressed(input);
}

/** A human message that addresses nobody: the replied-to agent, else everyone, else the default. */
function unaddressed(input: RouteInput): RouteDecision {
  const repliedTo = input.replyToAgent === undefined ? undefined : resolveName(input.replyToAgent, input.agents);
  if (repliedTo !== undefined) return { kind: "agents", agents: [repliedTo], unknown: [] };
  if (input.respond === "all") return { kind: "agents", agents: [...input.agents], unknown: [] };
  const defaultAgent = input.defaultAgent === undefined ? undefined : resolveName(input.defaultAgent, input.agents);
  if (defaultAgent !== undefined) return { kind: "agents", agents: [defaultAgent], unknown: [] };
  return none("not-addressed");
}

function classify(names: string[], input: RouteInput) {
  const agents: string[] = [];
  const unknown: string[] = [];
  let people = 0;
  for (const name of names) {
    const agent = resolveName(name, input.agents);
    if (agent !== undefined) agents.push(agent);
    else if (input.people !== undefined && resolveName(name, input.people) !== undefined) people += 1;
    else unknown.push(name);
  }
  return { agents, unknown, people };
}

function none(reason: NoAnswerReason): RouteDecision {
  return { kind: "none", reason };
}
