import { afterEach, describe, expect, it } from "vitest";
import { fakeTranscripts, startOpenAIFake, type FakeModelServer } from "../fakes/openai-server.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, groupId, mainToken } from "./helpers.js";
import { groupKey, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

let t: WorldTelegram | undefined;
let openai: FakeModelServer | undefined;
afterEach(async () => {
  await t?.close();
  await openai?.close();
  t = undefined;
  openai = undefined;
  fakeTranscripts.clear();
});

/** A few bytes of an Ogg Opus voice note (what Telegram sends): typed by its `OggS` magic. */
const voice = Uint8Array.from([...Buffer.from("OggS"), 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]);

async function sendVoice(world: WorldTelegram, caption?: string) {
  const { update } = world.fake.userFiles(mainToken, {
    chatId: groupId,
    from: ana,
    voice,
    ...(caption === undefined ? {} : { caption }),
  });
  await world.settle(update);
}

describe("voice notes from a Telegram group", () => {
  it("with files.transcribe, the note is transcribed through /audio/transcriptions and its words route and reach the model", async () => {
    openai = await startOpenAIFake({ apiKey: "sk-voice" });
    fakeTranscripts.set("*", "@bob what is the status of the release?");
    const alice = new ScriptedProvider(() => ({ text: "not me" }));
    const bob = new ScriptedProvider(() => ({ text: "Green." }));
    t = await worldOnTelegram({
      agents: [
        { name: "alice", provider: alice },
        { name: "bob", provider: bob },
      ],
      world: { defaultAgent: "alice" },
      providers: { whisper: { type: "openai", baseUrl: openai.baseUrl, apiKey: "sk-voice" } },
      files: { transcribe: "whisper" },
    });
    await sendVoice(t);
    // The spoken "@bob" addressed bob, not the default agent.
    expect(t.botTexts()).toEqual(["bob: Green."]);
    expect(alice.requests).toHaveLength(0);
    const [call] = openai.requests.filter((request) => request.url === "/v1/audio/transcriptions");
    expect(call?.headers.authorization).toBe("Bearer sk-voice");
    const body = call?.body as { model: string; fileName: string; fileType: string; bytes: Uint8Array };
    expect(body.model).toBe("whisper-1");
    expect(body.fileName).toMatch(/^voice-AQAD\d+\.ogg$/);
    expect(body.fileType).toBe("audio/ogg");
    expect(Buffer.from(body.bytes)).toEqual(Buffer.from(voice));
    // Stored as the message's text, after a line naming the note; the file is kept too.
    const [message] = (await t.world.store.listMessages(groupKey)).filter((stored) => stored.author.kind === "human");
    expect(message?.text).toBe(`[voice note ${body.fileName}, transcribed]\n@bob what is the status of the release?`);
    const [file] = await t.world.store.messageFiles(message?.id ?? "");
    expect(file).toMatchObject({ name: body.fileName, mediaType: "audio/ogg", size: voice.length });
    expect(bob.requests[0]?.messages.at(-1)?.text).toContain("@bob what is the status of the release?");
  });

  it("a caption stays first, and the model named in files.transcribeModel is asked", async () => {
    openai = await startOpenAIFake();
    fakeTranscripts.set("*", "ship it on friday");
    const alice = new ScriptedProvider(() => ({ text: "Noted." }));
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice" },
      providers: { whisper: { type: "openai", baseUrl: openai.baseUrl } },
      files: { transcribe: "whisper", transcribeModel: "gpt-4o-mini-transcribe" },
    });
    await sendVoice(t, "from the standup");
    const [call] = openai.requests.filter((request) => request.url === "/v1/audio/transcriptions");
    expect(call?.body).toMatchObject({ model: "gpt-4o-mini-transcribe" });
    const [message] = (await t.world.store.listMessages(groupKey)).filter((stored) => stored.author.kind === "human");
    expect(message?.text).toMatch(
      /^from the standup\n\[voice note voice-AQAD\d+\.ogg, transcribed\]\nship it on friday$/,
    );
    expect(t.botTexts()).toEqual(["alice: Noted."]);
  });

  it("a transcription that fails leaves the note named as a file; the message is still answered", async () => {
    openai = await startOpenAIFake({ apiKey: "sk-right" });
    const alice = new ScriptedProvider(() => ({ text: "I cannot hear it." }));
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice" },
      providers: { whisper: { type: "openai", baseUrl: openai.baseUrl, apiKey: "sk-wrong" } },
      files: { transcribe: "whisper" },
    });
    await sendVoice(t, "listen");
    expect(t.botTexts()).toEqual(["alice: I cannot hear it."]);
    const [message] = (await t.world.store.listMessages(groupKey)).filter((stored) => stored.author.kind === "human");
    expect(message?.text).toBe("listen");
    expect(alice.requests[0]?.messages.at(-1)?.text).toMatch(
      /^Ana: listen\n\[file voice-AQAD\d+\.ogg, audio\/ogg, 18 B, at inbox\//,
    );
    expect(t.world.logs()).toContain("a voice or audio file could not be transcribed");
  });

  it("without files.transcribe nothing is sent anywhere: the note is a file", async () => {
    openai = await startOpenAIFake();
    const alice = new ScriptedProvider(() => ({ text: "A file." }));
    t = await worldOnTelegram({ agents: [{ name: "alice", provider: alice }], world: { defaultAgent: "alice" } });
    await sendVoice(t, "hear this");
    expect(openai.requests).toEqual([]);
    const [message] = (await t.world.store.listMessages(groupKey)).filter((stored) => stored.author.kind === "human");
    expect(message?.text).toBe("hear this");
  });

  it("a voice note past the world's budget is not transcribed (the endpoint is never called); the chat says so", async () => {
    openai = await startOpenAIFake();
    const alice = new ScriptedProvider(() => ({ text: "A file." }));
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      // A second of audio is estimated at 10 tokens: past a 5-token day before it is sent.
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, tokensPerDay: 5 } },
      providers: { whisper: { type: "openai", baseUrl: openai.baseUrl } },
      files: { transcribe: "whisper" },
    });
    await sendVoice(t, "hear this");
    expect(openai.requests.filter((request) => request.url === "/v1/audio/transcriptions")).toEqual([]);
    const [message] = (await t.world.store.listMessages(groupKey)).filter((stored) => stored.author.kind === "human");
    expect(message?.text).toBe("hear this");
    const notice = t.botTexts().find((text) => text.includes("Not transcribed"));
    expect(notice).toMatch(
      /^Not transcribed: voice-AQAD\d+\.ogg\. This world cannot make the next model call within its daily budget \(it needs about 10 tokens\) \(tokensPerDay: 5 tokens a day, 0 used\)/,
    );
    expect(await t.world.store.listUsage({})).toEqual([]);
  });

  it("a voice note past its sender's budget (limits.perPerson) is not transcribed; the chat says so", async () => {
    openai = await startOpenAIFake();
    const alice = new ScriptedProvider(() => ({ text: "A file." }));
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      // A second of audio is estimated at 10 tokens: past Ana's 5-token day before it is sent.
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, perPerson: { tokensPerDay: 5 } } },
      providers: { whisper: { type: "openai", baseUrl: openai.baseUrl } },
      files: { transcribe: "whisper" },
    });
    await sendVoice(t, "hear this");
    expect(openai.requests.filter((request) => request.url === "/v1/audio/transcriptions")).toEqual([]);
    const notice = t.botTexts().find((text) => text.includes("Not transcribed"));
    expect(notice).toMatch(
      /^Not transcribed: voice-AQAD\d+\.ogg\. .*\(perPerson\.tokensPerDay: 5 tokens a day, 0 used\)/,
    );
  });

  it("a transcription is charged to the world's usage: the estimate from the audio, settled to the reported tokens", async () => {
    openai = await startOpenAIFake();
    fakeTranscripts.set("*", "ship it");
    const alice = new ScriptedProvider(() => ({ text: "Noted." }));
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice", limits: { messagesPerMinute: 20, tokensPerDay: 1000 } },
      providers: { whisper: { type: "openai", baseUrl: openai.baseUrl } },
      files: { transcribe: "whisper" },
    });
    await sendVoice(t);
    const whisper = (await t.world.store.listUsage({})).find((row) => row.agent === "transcription");
    // whisper-1 reports no usage: 1 s of audio (10 tokens), the transcript's words, $0.006 a minute.
    expect(whisper).toMatchObject({ world: "main", calls: 1, estimatedCalls: 1, inputTokens: 10, outputTokens: 2 });
    expect(whisper?.costUsd).toBeCloseTo(0.0001, 8);
    // The transcription and alice's answer in the world's, the chat's and the sender's buckets
    // (what every cap reads), as in the agents' days.
    const day = whisper?.day ?? "";
    const rows = await t.world.store.listUsage({});
    const total = (key: "calls" | "inputTokens" | "outputTokens") => rows.reduce((sum, row) => sum + row[key], 0);
    expect(rows.map((row) => row.agent).sort()).toEqual(["alice", "transcription"]);
    for (const scope of ["world", "chat", "person"] as const) {
      const [bucket] = await t.world.store.listBuckets({ world: "main", scope, period: day });
      expect(bucket).toMatchObject({
        calls: total("calls"),
        inputTokens: total("inputTokens"),
        outputTokens: total("outputTokens"),
      });
    }
    const [person] = await t.world.store.listBuckets({ world: "main", scope: "person", period: day });
    expect(person?.subject).toBe(String(ana.id));
    const [chat] = await t.world.store.listBuckets({ world: "main", scope: "chat", period: day });
    expect(chat?.subject).toBe(groupKey);

    await t.close();
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice" },
      providers: { whisper: { type: "openai", baseUrl: openai.baseUrl } },
      files: { transcribe: "whisper", transcribeModel: "gpt-4o-transcribe" },
    });
    await sendVoice(t);
    const reported = (await t.world.store.listUsage({})).find((row) => row.agent === "transcription");
    expect(reported).toMatchObject({ calls: 1, estimatedCalls: 0, inputTokens: 14, outputTokens: 7 });
  });
});
