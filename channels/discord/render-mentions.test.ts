import { describe, expect, it } from "vitest";
import { renderMentions } from "./render-mentions.js";

describe("renderMentions", () => {
  const bots = (agent: string) => (agent === "carol" ? "555" : undefined);

  it("people become <@id> and may be pinged; agents keep @name unless they have their own bot", () => {
    const rendered = renderMentions(
      "@ana over to you; @bob and @carol agree. Mail ana@example.com, `@ana` in code.",
      [
        { text: "@ana", target: { kind: "person", id: "111", name: "Ana" } },
        { text: "@bob", target: { kind: "agent", name: "bob", displayName: "Bob" } },
        { text: "@carol", target: { kind: "agent", name: "carol", displayName: "Carol" } },
      ],
      bots,
    );
    expect(rendered.text).toBe("<@111> over to you; @bob and <@555> agree. Mail ana@example.com, `@ana` in code.");
    expect(rendered.userIds).toEqual(["111", "555"]);
  });

  it("a person without a Discord id stays as written", () => {
    const rendered = renderMentions(
      "@ana hi",
      [{ text: "@ana", target: { kind: "person", id: "ana", name: "Ana" } }],
      bots,
    );
    expect(rendered).toEqual({ text: "@ana hi", userIds: [] });
  });
});
