import { describe, expect, it } from "vitest";
import { type RouteDecision, type RouteInput, routeMessage } from "./route-message.js";

const ana = { kind: "human", name: "ana" } as const;
const world = { agents: ["alice", "bob", "Release-Bot"], respond: "addressed", allowBots: false } as const;

function route(overrides: Partial<RouteInput>): RouteDecision {
  return routeMessage({ ...world, author: ana, text: "", ...overrides });
}

const answer = (...agents: string[]): RouteDecision => ({ kind: "agents", agents, unknown: [] });

describe("routeMessage: human messages", () => {
  it.each<{ case: string; input: Partial<RouteInput>; expected: RouteDecision }>([
    { case: "one agent addressed", input: { text: "@alice deploy" }, expected: answer("alice") },
    {
      case: "two agents, order of first mention",
      input: { text: "@bob @alice review" },
      expected: answer("bob", "alice"),
    },
    { case: "one per line", input: { text: "@alice do X\n@bob do Y" }, expected: answer("alice", "bob") },
    { case: "address in the second paragraph", input: { text: "Hi all.\n\n@bob check" }, expected: answer("bob") },
    {
      case: "mixed case answers in configured spelling",
      input: { text: "@ALICE @release-bot go" },
      expected: answer("alice", "Release-Bot"),
    },
    { case: "mention followed by punctuation", input: { text: "@bob, deploy" }, expected: answer("bob") },
    { case: "leading whitespace", input: { text: "  @bob deploy" }, expected: answer("bob") },
    {
      case: "only unknown names",
      input: { text: "@carol deploy" },
      expected: { kind: "unknown", agents: [], unknown: ["carol"], known: ["alice", "bob", "Release-Bot"] },
    },
    {
      case: "known and unknown",
      input: { text: "@carol @bob deploy" },
      expected: { kind: "agents", agents: ["bob"], unknown: ["carol"] },
    },
    {
      case: "address to a known person",
      input: { text: "@dan can you check?", people: ["Dan"] },
      expected: { kind: "none", reason: "addressed-to-people" },
    },
    { case: "person and agent", input: { text: "@dan @bob check", people: ["dan"] }, expected: answer("bob") },
    { case: "no address, no default", input: { text: "hello" }, expected: { kind: "none", reason: "not-addressed" } },
    { case: "no address goes to the default", input: { text: "hello", defaultAgent: "bob" }, expected: answer("bob") },
    { case: "default in other case", input: { text: "hello", defaultAgent: "BOB" }, expected: answer("bob") },
    {
      case: "default not in the world",
      input: { text: "hello", defaultAgent: "zed" },
      expected: { kind: "none", reason: "not-addressed" },
    },
    {
      case: "mid-sentence mention is not an address",
      input: { text: "ask @bob later", defaultAgent: "alice" },
      expected: answer("alice"),
    },
    {
      case: "mention in inline code",
      input: { text: "`@bob` is a name" },
      expected: { kind: "none", reason: "not-addressed" },
    },
    {
      case: "mention in a code block",
      input: { text: "```\n@bob\n```", defaultAgent: "alice" },
      expected: answer("alice"),
    },
    { case: "e-mail address", input: { text: "bob@example.com", defaultAgent: "alice" }, expected: answer("alice") },
    { case: "URL", input: { text: "https://x.com/@bob", defaultAgent: "alice" }, expected: answer("alice") },
    { case: "respond all", input: { text: "hello", respond: "all" }, expected: answer("alice", "bob", "Release-Bot") },
    { case: "respond all but addressed", input: { text: "@bob hello", respond: "all" }, expected: answer("bob") },
    {
      case: "reply to an agent",
      input: { text: "and then?", replyToAgent: "bob", defaultAgent: "alice" },
      expected: answer("bob"),
    },
    {
      case: "reply beats respond all",
      input: { text: "and then?", replyToAgent: "bob", respond: "all" },
      expected: answer("bob"),
    },
    {
      case: "explicit address beats reply",
      input: { text: "@alice and then?", replyToAgent: "bob" },
      expected: answer("alice"),
    },
    {
      case: "reply to an agent not in the world",
      input: { text: "ok", replyToAgent: "zed", defaultAgent: "alice" },
      expected: answer("alice"),
    },
    {
      case: "platform mentions do not add addresses",
      input: { text: "thanks @bob", mentions: ["bob"] },
      expected: { kind: "none", reason: "not-addressed" },
    },
    {
      case: "world without agents",
      input: { text: "@alice hi", agents: [] },
      expected: { kind: "none", reason: "no-agents" },
    },
  ])("$case", ({ input, expected }) => {
    expect(route(input)).toEqual(expected);
  });
});

describe("routeMessage: agents, bots, the world", () => {
  const alice = { kind: "agent", name: "alice" } as const;
  it.each<{ case: string; input: Partial<RouteInput>; expected: RouteDecision }>([
    { case: "agent addresses another", input: { author: alice, text: "@bob your turn" }, expected: answer("bob") },
    {
      case: "agent addresses itself only",
      input: { author: alice, text: "@alice note to self" },
      expected: { kind: "none", reason: "no-other-agent-addressed" },
    },
    {
      case: "agent's self-address is dropped",
      input: { author: alice, text: "@Alice @bob go" },
      expected: answer("bob"),
    },
    {
      case: "agent without address, default ignored",
      input: { author: alice, text: "done", defaultAgent: "bob" },
      expected: { kind: "none", reason: "no-other-agent-addressed" },
    },
    {
      case: "agent in a respond-all world",
      input: { author: alice, text: "done", respond: "all" },
      expected: { kind: "none", reason: "no-other-agent-addressed" },
    },
    {
      case: "agent reply target ignored",
      input: { author: alice, text: "done", replyToAgent: "bob" },
      expected: { kind: "none", reason: "no-other-agent-addressed" },
    },
    {
      case: "agent addresses a person",
      input: { author: alice, text: "@ana done" },
      expected: { kind: "none", reason: "no-other-agent-addressed" },
    },
    {
      case: "agent mentions mid-sentence",
      input: { author: alice, text: "ask @bob" },
      expected: { kind: "none", reason: "no-other-agent-addressed" },
    },
    {
      case: "agent addresses agent and unknown",
      input: { author: alice, text: "@ana @bob go" },
      expected: { kind: "agents", agents: ["bob"], unknown: ["ana"] },
    },
    {
      case: "other bot",
      input: { author: { kind: "human", name: "ci", isBot: true }, text: "@alice build failed" },
      expected: { kind: "none", reason: "bot-message" },
    },
    {
      case: "other bot, allowed",
      input: { author: { kind: "human", name: "ci", isBot: true }, text: "@alice build failed", allowBots: true },
      expected: answer("alice"),
    },
    {
      case: "other bot, allowed, default",
      input: {
        author: { kind: "human", name: "ci", isBot: true },
        text: "failed",
        allowBots: true,
        defaultAgent: "bob",
      },
      expected: answer("bob"),
    },
    {
      case: "own echo",
      input: { author: { kind: "human", name: "roundtable", isSelf: true }, text: "@alice hi", allowBots: true },
      expected: { kind: "none", reason: "own-message" },
    },
    {
      case: "system message",
      input: { author: { kind: "system", name: "roundtable" }, text: "@alice @bob stop", defaultAgent: "alice" },
      expected: { kind: "none", reason: "system-message" },
    },
  ])("$case", ({ input, expected }) => {
    expect(route(input)).toEqual(expected);
  });
});
