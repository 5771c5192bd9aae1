import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, fakeTranscripts, startOpenAIFake } from "../fakes/openai-server.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, channel, threadKey, type WorldSlack, worldOnSlack } from "./world-slack.js";

let t: WorldSlack | undefined;
let openai: FakeModelServer | undefined;
afterEach(async () => {
  await t?.close();
  await openai?.close();
  t = undefined;
  openai = undefined;
  fakeTranscripts.clear();
});

/** The start of an MP3 with an ID3 tag (what a Slack audio clip often is): typed by its bytes. */
const mp3 = Uint8Array.from([...Buffer.from("ID3"), 4, 0, 0, 0, 0, 0, 0, 0xff, 0xfb, 0x90, 0x64]);

describe("audio shared in Slack", () => {
  it("with files.transcribe, an audio clip's words join the message and reach the model", async () => {
    openai = await startOpenAIFake();
    fakeTranscripts.set("standup.mp3", "the build is green");
    const alice = new ScriptedProvider(() => ({ text: "Good." }));
    t = await worldOnSlack({
      mode: "http",
      agents: [{ name: "alice", provider: alice }],
      providers: { whisper: { type: "openai", baseUrl: openai.baseUrl } },
      files: { transcribe: "whisper" },
    });
    const { message } = await t.fake.userFileShare({
      channel,
      user: ana,
      text: "@alice from the standup",
      files: [{ name: "standup.mp3", bytes: mp3 }],
    });
    await t.settle();
    expect(t.replies(message.ts).map((reply) => reply.text)).toEqual(["Good."]);
    const [call] = openai.requests.filter((request) => request.url === "/v1/audio/transcriptions");
    expect(call?.body).toMatchObject({ model: "whisper-1", fileName: "standup.mp3", fileType: "audio/mpeg" });
    const stored = await t.world.store.findMessageByPlatformId(threadKey(message.ts), message.ts);
    expect(stored?.text).toBe("@alice from the standup\n[audio standup.mp3, transcribed]\nthe build is green");
    expect(alice.requests[0]?.messages.at(-1)?.text).toContain("the build is green");
  });
});
