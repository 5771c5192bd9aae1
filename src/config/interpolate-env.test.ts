import { describe, expect, it } from "vitest";
import { protectEnvReferences } from "./interpolate-env.js";

describe("protectEnvReferences", () => {
  it("hides references behind placeholder words and restores them", () => {
    const original = "a: { key: ${KEY}, url: ${URL:-http://x} }";
    const protectedText = protectEnvReferences(original, { KEY: "k" });
    expect(protectedText.text).not.toContain("${");
    expect(protectedText.text).toMatch(/^a: \{ key: [A-Za-z0-9]+, url: [A-Za-z0-9]+ \}$/);
    expect(protectedText.restore(protectedText.text)).toBe("a: { key: k, url: http://x }");
  });

  it("collects variables that were unset without a default", () => {
    const protectedText = protectEnvReferences("${A} ${B:-b} ${C}", { C: "" });
    const unset = new Set<string>();
    expect(protectedText.restore(protectedText.text, unset)).toBe(" b ");
    expect([...unset]).toEqual(["A"]);
  });

  it("keeps $${...} as a literal ${...}", () => {
    const protectedText = protectEnvReferences("$${HOME} and $${X:-y}", { HOME: "/root" });
    expect(protectedText.restore(protectedText.text)).toBe("${HOME} and ${X:-y}");
  });

  it("leaves things that are not references alone", () => {
    const protectedText = protectEnvReferences("$HOME ${1X} ${ A } cost: $5", { HOME: "/root" });
    expect(protectedText.text).toBe("$HOME ${1X} ${ A } cost: $5");
  });

  it("maps offsets in the protected text back to the original", () => {
    const original = "x: ${LONG_VARIABLE_NAME} ]";
    const protectedText = protectEnvReferences(original, {});
    const bracket = protectedText.text.indexOf("]");
    expect(protectedText.originalOffset(bracket)).toBe(original.indexOf("]"));
    expect(protectedText.originalOffset(1)).toBe(1);
  });

  it("reports ${NAME never closed, but not an escaped $${ or things that are not references", () => {
    const original = "a: ${TOKEN\nb: $${LITERAL\nc: ${ A } ${1X}\nd: ${OK} ${LATE";
    const protectedText = protectEnvReferences(original, {});
    expect(protectedText.unterminated).toEqual([original.indexOf("${TOKEN"), original.indexOf("${LATE")]);
  });
});
