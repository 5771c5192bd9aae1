import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../tools/wait-until.js";
import { postJson, startWebService, type WebService } from "./web-service.js";

let web: WebService | undefined;
afterEach(async () => {
  await web?.close();
  web = undefined;
});

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
    // Written for tools like any platform's files; the refused one only named.
    const inbox = path.join(web.directory, "inbox");
    const [directory] = readdirSync(inbox).filter((name) => !name.startsWith("."));
    expect(readdirSync(path.join(inbox, directory ?? "")).sort()).toEqual(["server.log", "shot.png"]);
    expect(readFileSync(path.join(inbox, directory ?? "", "server.log"))).toEqual(log);
    expect(messageId).toMatch(/^in-/);
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
