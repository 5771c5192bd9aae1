import { describe, expect, it } from "vitest";
import { type OutboundMention, splitByMentions } from "./outbound-mention.js";

const ana: OutboundMention = { text: "@ana", target: { kind: "person", id: "U1", name: "ana" } };
const anabel: OutboundMention = { text: "@anabel", target: { kind: "person", id: "U2", name: "anabel" } };
const bob: OutboundMention = { text: "@bob", target: { kind: "agent", name: "bob", displayName: "Bob" } };

function render(text: string, mentions: OutboundMention[]): string {
  return splitByMentions(text, mentions)
    .map((segment) => (segment.kind === "text" ? segment.text : `<${segment.mention.text}>`))
    .join("");
}

describe("splitByMentions", () => {
  it("finds every occurrence that stands alone", () => {
    expect(render("@ana and @bob, then @ana again.", [ana, bob])).toBe("<@ana> and <@bob>, then <@ana> again.");
  });

  it("prefers the longer name and leaves longer words, e-mail addresses, code and URLs alone", () => {
    expect(render("@anabel @ana @anastasia mail ana@example.org `@ana` https://x.org/@ana", [ana, anabel])).toBe(
      "<@anabel> <@ana> @anastasia mail ana@example.org `@ana` https://x.org/@ana",
    );
  });

  it("keeps the text whole when nothing is mentioned", () => {
    expect(splitByMentions("plain", [])).toEqual([{ kind: "text", text: "plain" }]);
    expect(splitByMentions("", [ana])).toEqual([]);
  });
});
