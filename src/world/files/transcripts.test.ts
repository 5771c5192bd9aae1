import { describe, expect, it } from "vitest";
import type { MessageFile } from "../records.js";
import { untranscribedNotice, withTranscripts } from "./transcripts.js";

const voice = (transcript: string, name = "voice.ogg"): MessageFile => ({
  name,
  mediaType: "audio/ogg",
  size: 10,
  transcript,
});

describe("withTranscripts", () => {
  it("keeps a transcript within the message's text limit, cut with the cut said", () => {
    const text = withTranscripts("hi", [voice("x".repeat(500))], 200);
    expect(text.length).toBeLessThanOrEqual(200);
    const [caption, head, words] = text.split("\n");
    expect(caption).toBe("hi");
    expect(head).toMatch(/^\[voice note voice\.ogg, transcribed, cut to (\d+) of 500 characters\]$/);
    expect(words?.length).toBe(Number(/cut to (\d+)/.exec(head ?? "")?.[1]));
    expect(withTranscripts("", [voice("short")], 200)).toBe("[voice note voice.ogg, transcribed]\nshort");
  });

  it("names the files not transcribed, with the reason", () => {
    expect(untranscribedNotice([{ ...voice(""), untranscribed: "Budget reached." }])).toBe(
      "Not transcribed: voice.ogg. Budget reached.",
    );
    expect(untranscribedNotice([voice("words")])).toBeUndefined();
  });
});
