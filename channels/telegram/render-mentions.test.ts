import { describe, expect, it } from "vitest";
import type { OutboundMention } from "../../src/world/channel-adapter.js";
import { renderText } from "./render.js";
import { withTelegramMentions } from "./render-mentions.js";

const mentions: OutboundMention[] = [
  { text: "@ana", target: { kind: "person", id: "222", name: "Ana [QA]" } },
  { text: "@boss", target: { kind: "person", id: "333", name: "Boss", handle: "the_boss" } },
  { text: "@bob", target: { kind: "agent", name: "bob", displayName: "Bob" } },
  { text: "@alice", target: { kind: "agent", name: "alice", displayName: "Alice" } },
];

describe("withTelegramMentions", () => {
  const bots = (agent: string) => (agent === "bob" ? "bob_rt_bot" : undefined);

  it("renders people as text mentions or @username, agents as their own bot or @name", () => {
    const markdown = withTelegramMentions("@ana, @boss: ask @bob or @alice.", mentions, bots);
    expect(markdown).toBe("[Ana QA](tg://user?id=222), @the_boss: ask @bob_rt_bot or @alice.");
    expect(renderText(markdown)[0]?.html).toBe(
      '<a href="tg://user?id=222">Ana QA</a>, @the_boss: ask @bob_rt_bot or @alice.',
    );
  });

  it("leaves text without mentions as it is", () => {
    expect(withTelegramMentions("@ana hi", undefined, bots)).toBe("@ana hi");
  });
});
