import { describe, expect, it } from "vitest";
import { decodeOptional, decodeWithDates, encodeOptional, encodeWithDates } from "./json-text.js";

describe("JSON text", () => {
  it("keeps Dates anywhere in a value", () => {
    const value = {
      at: new Date("2026-01-01T00:00:00.000Z"),
      list: [new Date("2026-01-02T00:00:00.000Z"), { deep: new Date("2026-01-03T00:00:00.000Z") }],
      text: "2026-01-01T00:00:00.000Z",
      empty: null,
    };
    const back = decodeWithDates(encodeWithDates(value));
    expect(back).toEqual(value);
    expect((back as typeof value).at).toBeInstanceOf(Date);
    expect((back as typeof value).text).toBe("2026-01-01T00:00:00.000Z");
  });

  it("leaves objects that merely have a $date key among others alone", () => {
    const value = { $date: "2026-01-01T00:00:00.000Z", other: 1 };
    expect(decodeWithDates(encodeWithDates(value))).toEqual(value);
  });

  it("stores undefined as null and reads it back as undefined", () => {
    expect(encodeOptional(undefined)).toBeNull();
    expect(decodeOptional(null)).toBeUndefined();
    expect(decodeOptional(encodeOptional({ a: [1, 2] }))).toEqual({ a: [1, 2] });
    expect(decodeOptional(encodeOptional(null))).toBeNull();
  });
});
