import { APIError } from "openai";
import { describe, expect, it } from "vitest";
import { mapOpenAIError } from "./map-error.js";

/** An `{ "error": … }` object inside an open stream, as the SDK throws it. */
const inStream = (error: Record<string, unknown>) => new APIError(undefined, error, undefined, new Headers());

describe("mapOpenAIError inside a stream", () => {
  it("reads the code as a status where it is one, a number or its digits", () => {
    const cases = [
      [{ message: "bad key", type: "None", code: "401" }, "provider.auth", false],
      [{ message: "slow down", type: "None", code: "429" }, "provider.rate-limited", true],
      [{ message: "no such parameter", type: "BadRequestError", code: 400 }, "provider.invalid-request", false],
      [
        { message: "Incorrect API key", type: "invalid_request_error", code: "invalid_api_key" },
        "provider.auth",
        false,
      ],
      [{ message: "The engine is overloaded", type: "server_error", code: null }, "provider.server", true],
    ] as const;
    for (const [body, code, transient] of cases) {
      const error = mapOpenAIError(inStream({ ...body }), "openai", undefined, "gpt-x");
      expect([body.message, error.code, error.transient]).toEqual([body.message, code, transient]);
    }
  });
});
