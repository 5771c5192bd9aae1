import { describe, expect, it } from "vitest";
import { checkArguments, firstDuplicateKey, parseArgumentsJson, validateArguments } from "./validate-arguments.js";

const schema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: {
    command: { type: "string" },
    args: { type: "array", items: { type: "string" } },
    mode: { enum: ["fast", "slow"] },
  },
  required: ["command"],
  additionalProperties: false,
};

describe("validateArguments", () => {
  it.each([
    ['{"command":1}', "/command must be string"],
    ["{}", "arguments must have required property 'command'"],
    ['{"command":"x","extra":1}', 'arguments must NOT have additional properties: "extra"'],
    ['{"command":"x","args":["a",2]}', "/args/1 must be string"],
    ['{"command":"x","mode":"medium"}', '/mode must be equal to one of the allowed values: ["fast","slow"]'],
    ['{"command":2,"args":"a"}', "/command must be string; /args must be array"],
    ["[]", "arguments must be a JSON object, got an array"],
    ["null", "arguments must be a JSON object, got null"],
    ['"ls"', "arguments must be a JSON object, got a string"],
  ])("%s → %s", (text, problem) => {
    expect(validateArguments(schema, text)).toEqual({ ok: false, problem });
  });

  it("names a JSON parse problem", () => {
    const result = parseArgumentsJson('{"command": "ls"');
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.problem).toMatch(/^arguments are not valid JSON: .+/);
  });

  it("accepts fitting arguments and treats empty text as {}", () => {
    expect(validateArguments(schema, '{"command":"ls","args":["-l"]}')).toEqual({
      ok: true,
      args: { command: "ls", args: ["-l"] },
    });
    expect(validateArguments({ type: "object", properties: {} }, "  ")).toEqual({ ok: true, args: {} });
  });

  it("reads 2020-12 schemas", () => {
    const modern = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] } },
    };
    expect(checkArguments(modern, { pair: ["a", 1] }).ok).toBe(true);
    expect(checkArguments(modern, { pair: ["a", "b"] })).toEqual({ ok: false, problem: "/pair/1 must be integer" });
  });

  it("leaves checking to the tool when a schema cannot be compiled", () => {
    expect(checkArguments({ type: "no-such-type" }, { a: 1 })).toEqual({ ok: true, args: { a: 1 } });
  });

  it("matches schema patterns in linear time, on values up to 10,000 characters", () => {
    const redos = { type: "object", properties: { name: { type: "string", pattern: "^(a+)+$" } } };
    // A backtracking engine would not finish this before the test's timeout.
    expect(checkArguments(redos, { name: `${"a".repeat(9_000)}!` })).toEqual({
      ok: false,
      problem: '/name must match pattern "^(a+)+$"',
    });
    expect(checkArguments(redos, { name: "aaaa" }).ok).toBe(true);
    expect(checkArguments(redos, { name: "a".repeat(10_001) }).ok).toBe(false);
  });
});

describe("duplicate keys", () => {
  it("are refused, naming the key and where it repeats (JSON.parse would keep the last)", () => {
    const spaced = `{"command":"echo",${"\n".repeat(60)}"command":"touch","args":["x"]}`;
    expect(parseArgumentsJson(spaced)).toEqual({
      ok: false,
      problem: 'arguments repeat the key "command": each key may appear once',
    });
    expect(parseArgumentsJson('{"a":{"b":1,"c":[{"d":1,"\\u0064":2}]}}')).toEqual({
      ok: false,
      problem: 'arguments repeat the key "d" in /a/c/0: each key may appear once',
    });
  });

  it("equal values in different objects, arrays and strings with quotes are fine", () => {
    expect(firstDuplicateKey('{"a":{"x":1},"b":{"x":1},"c":["x","x"],"d":"\\"x\\":1,\\"x\\""}')).toBeUndefined();
    expect(parseArgumentsJson('{"command":"ls","args":["-l","-l"]}')).toEqual({
      ok: true,
      args: { command: "ls", args: ["-l", "-l"] },
    });
  });
});
