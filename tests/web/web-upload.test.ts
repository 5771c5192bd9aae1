import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../fakes/model-fake-server.js";
import { countsCsv, inboxPathIn } from "../fakes/inbox-line-counter.js";
import { waitUntil } from "../tools/wait-until.js";
import { EventReader, postJson, startWebService, type WebService } from "./web-service.js";

let web: WebService | undefined;
let reader: EventReader | undefined;
afterEach(async () => {
  await reader?.close();
  reader = undefined;
  await web?.close();
  web = undefined;
});

type Item = { kind: string; id: string; text?: string; author?: { name: string }; card?: Record<string, unknown> };

/** What the page was sent, item by item (snapshot items, then each new or changed one). */
function itemsOf(events: unknown[]): Item[] {
  return (events as { items?: Item[]; item?: Item }[]).flatMap(
    (event) => event.items ?? (event.item ? [event.item] : []),
  );
}

/** The chat as the page shows it now: each item's latest version, in order of first appearance. */
function chatOf(events: unknown[]): Item[] {
  const latest = new Map<string, Item>();
  for (const item of itemsOf(events)) latest.set(item.id, item);
  return [...latest.values()];
}

/** Opens the page's event stream for `ana` and waits for its snapshot. */
async function openChat(service: WebService, cookie: string): Promise<EventReader> {
  const opened = new EventReader();
  await opened.open(`${service.origin}/chat/events?world=team`, { cookie });
  await waitUntil("the snapshot arrives", () => opened.events.length > 0);
  return opened;
}

type ChatMessage = { role: string; content: unknown };

function textOf(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  return ((content ?? []) as { type: string; text?: string }[])
    .map((part) => (part.type === "text" ? (part.text ?? "") : ""))
    .join("");
}

const mebibyte = 1024 * 1024;
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

describe("uploads on the web chat (the real service, the OpenAI SDK against its fake)", () => {
  it("a screenshot and a log over the server's 1 MiB body limit reach the model; a file over files.maxBytes gets one line", async () => {
    web = await startWebService({ extraConfig: ["files: { maxBytes: 2097152 }"] });
    web.fake.script({ type: "reply", text: ["An error dialog."], usage: { inputTokens: 10, outputTokens: 3 } });
    const cookie = await web.login();
    const log = Buffer.from("line\n".repeat((1.5 * mebibyte) / 5));
    const upload = await postJson(
      web.origin,
      "/chat/uploads",
      {
        world: "team",
        name: "ana",
        text: "@alice what does this show?",
        clientId: "upload-0001",
        files: [
          { name: "shot.png", data: png.toString("base64") },
          { name: "server.log", data: log.toString("base64") },
          { name: "dump.bin", data: Buffer.alloc(3 * mebibyte, 1).toString("base64") },
        ],
      },
      { cookie },
    );
    expect(upload.status).toBe(202);
    const { messageId } = (await upload.json()) as { messageId: string };
    await waitUntil("alice is asked", () => web?.fake.requests.length === 1);

    const body = web.fake.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    const user = body.messages.find((message) => message.role === "user");
    expect(user?.content).toEqual([
      { type: "text", text: expect.stringContaining("ana: @alice what does this show?\n[file shot.png, image/png") },
      { type: "image_url", image_url: { url: `data:image/png;base64,${png.toString("base64")}` } },
    ]);
    const text = ((user?.content ?? []) as { text: string }[])[0]?.text ?? "";
    expect(text).toContain("[file server.log, text/plain; charset=utf-8, 1.5 MiB, at inbox/");
    expect(text).toContain("[file dump.bin, 3.0 MiB: not passed on (too big: over 2.0 MiB)]");
    // The chat gets the same one line as on the platforms, posted before the turn starts.
    reader = await openChat(web, cookie);
    expect(chatOf(reader.events).filter((item) => item.text?.startsWith("Not passed on"))).toEqual([
      expect.objectContaining({
        text: "Not passed on to the agents: dump.bin (too big: over 2.0 MiB). The message itself was.",
      }),
    ]);
    // Written for tools like any platform's files; the refused one only named.
    const inbox = path.join(web.directory, "inbox");
    const [directory] = readdirSync(inbox).filter((name) => !name.startsWith("."));
    expect(readdirSync(path.join(inbox, directory ?? "")).sort()).toEqual(["server.log", "shot.png"]);
    expect(readFileSync(path.join(inbox, directory ?? "", "server.log"))).toEqual(log);
    expect(messageId).toMatch(/^in-/);
  });

  it("a CSV reaches a shell_cmd run through the inbox/ path the model was given; ana approves on the page, the count is answered", async () => {
    const paths: string[] = [];
    // A model on the OpenAI wire: reads the file's path from the request, runs `wc -l` on it, then says what it got.
    const respond = (request: RecordedRequest) => {
      const last = (request.body as { messages: ChatMessage[] }).messages.at(-1);
      if (last?.role === "tool") {
        return { type: "reply" as const, text: [`wc says: ${textOf(last).replace(/\s+/g, " ").trim()}`] };
      }
      const found = inboxPathIn(textOf(last), "counts.csv");
      if (found === undefined) return { type: "reply" as const, text: ["I see no counts.csv."] };
      paths.push(found);
      const args = JSON.stringify({ command: "wc", args: ["-l", found] });
      return { type: "reply" as const, toolCalls: [{ id: "call_wc", name: "shell_cmd", argumentChunks: [args] }] };
    };
    web = await startWebService({ respond });
    const cookie = await web.login();
    reader = await openChat(web, cookie);
    const upload = await postJson(
      web.origin,
      "/chat/uploads",
      {
        world: "team",
        name: "ana",
        text: "@alice how many rows?",
        clientId: "upload-csv-01",
        files: [{ name: "counts.csv", data: Buffer.from(countsCsv).toString("base64") }],
      },
      { cookie },
    );
    expect(upload.status).toBe(202);
    const { messageId } = (await upload.json()) as { messageId: string };
    await waitUntil("the card arrives", () => itemsOf(reader?.events ?? []).some((item) => item.kind === "card"));
    const csvPath = path.posix.join("inbox", messageId, "counts.csv");
    expect(paths).toEqual([csvPath]);
    const card = itemsOf(reader.events).find((item) => item.kind === "card");
    expect(card?.card?.argumentsJson).toBe(JSON.stringify({ command: "wc", args: ["-l", csvPath] }));
    const decided = await postJson(
      web.origin,
      "/chat/approvals",
      { world: "team", name: "ana", approvalId: card?.id, choice: "once" },
      { cookie },
    );
    expect(((await decided.json()) as { status: string }).status).toBe("decided");

    const answer = `wc says: exit code: 0 stdout: 3 ${csvPath} stderr: (empty)`;
    await waitUntil("the answer arrives", () => chatOf(reader?.events ?? []).some((item) => item.text === answer));
    const result = (web.fake.requests[1]?.body as { messages: ChatMessage[] } | undefined)?.messages.at(-1);
    expect(result).toMatchObject({
      role: "tool",
      content: expect.stringMatching(new RegExp(`^exit code: 0\\nstdout:\\n\\s*3 ${csvPath}\\n`)),
    });
    expect(chatOf(reader.events).map((item) => item.text ?? item.kind)).toEqual([
      "@alice how many rows?\n[files: counts.csv]",
      "card",
      answer,
    ]);
  });

  it("a 30 MiB file is refused with the same one line as on the platforms, and the question is still answered", async () => {
    web = await startWebService();
    web.fake.script({ type: "reply", text: ["Here is the summary."], usage: { inputTokens: 10, outputTokens: 3 } });
    const cookie = await web.login();
    reader = await openChat(web, cookie);
    const upload = await postJson(
      web.origin,
      "/chat/uploads",
      {
        world: "team",
        name: "ana",
        text: "@alice summarise the log",
        clientId: "upload-big-01",
        files: [{ name: "server.log", data: Buffer.alloc(30 * mebibyte).toString("base64") }],
      },
      { cookie },
    );
    expect(upload.status).toBe(202);
    await waitUntil("the answer arrives", () =>
      chatOf(reader?.events ?? []).some((item) => item.text === "Here is the summary."),
    );
    const texts = chatOf(reader.events).map((item) => item.text);
    expect(texts.filter((text) => text?.startsWith("Not passed on"))).toEqual([
      "Not passed on to the agents: server.log (too big: over 20 MiB). The message itself was.",
    ]);
    expect(texts).toContain("@alice summarise the log\n[files: server.log]");
    const body = web.fake.requests[0]?.body as { messages: ChatMessage[] };
    expect(textOf(body.messages.at(-1))).toContain("[file server.log, 30 MiB: not passed on (too big: over 20 MiB)]");
    expect(readdirSync(web.directory)).not.toContain("inbox");
  });

  it("refuses an upload without files, with a name that is no file name, or data that is not base64", async () => {
    web = await startWebService();
    const cookie = await web.login();
    const post = (files: unknown) =>
      postJson(
        web?.origin ?? "",
        "/chat/uploads",
        { world: "team", name: "ana", text: "", clientId: "bad-000001", files },
        { cookie },
      );
    expect((await post([])).status).toBe(400);
    expect((await post([{ name: "", data: "AAAA" }])).status).toBe(400);
    expect((await post([{ name: "a.txt", data: "not base64!" }])).status).toBe(400);
    expect(web.fake.requests).toHaveLength(0);
  });
});
