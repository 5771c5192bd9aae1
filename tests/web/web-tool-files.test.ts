import { afterEach, describe, expect, it } from "vitest";
import { notesServerCommand } from "../fakes/mcp-notes-command.js";
import { onePixelPng } from "../fakes/mcp-notes-tools.js";
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

type Item = { kind: string; id: string; text?: string; files?: { name: string; url: string; image: boolean }[] };
type Event = { type: string; item?: Item; items?: Item[] };

describe("files a tool gives, on the web chat (the real service, the OpenAI SDK against its fake)", () => {
  it("an MCP server returning an image makes the chat show it once, linked to GET /chat/file behind the login", async () => {
    const notes = notesServerCommand();
    web = await startWebService({
      agentTools: ["shell_cmd", "notes__*"],
      extraConfig: [
        "tools:",
        `  mcpServers: { notes: { command: ${JSON.stringify(notes.command)}, args: ${JSON.stringify(notes.args)} } }`,
        '  approval: { "notes__*": never }',
      ],
    });
    web.fake.script(
      { type: "reply", toolCalls: [{ id: "call_1", name: "notes__picture", argumentChunks: ["{}"] }] },
      { type: "reply", text: ["here is the chart"] },
    );
    const auth = { authorization: `Bearer ${web.token}` };
    reader = new EventReader();
    await reader.open(`${web.origin}/chat/events?world=team`, auth);
    await waitUntil("the snapshot arrives", () => reader?.events.length === 1);
    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", name: "ana", text: "chart it", clientId: "client-0001" },
      auth,
    );
    const items = () =>
      ((reader?.events ?? []) as Event[]).flatMap((event) => (event.item?.kind === "message" ? [event.item] : []));
    await waitUntil("alice's answer arrives", () => items().some((item) => item.text === "here is the chart"));

    const withFiles = items().filter((item) => item.files !== undefined);
    expect(withFiles).toHaveLength(1);
    const [posted] = withFiles;
    expect(posted?.text).toBe("image-1.png from notes__picture");
    const [link] = posted?.files ?? [];
    expect(link).toMatchObject({ name: "image-1.png", image: true });
    expect(link?.url).toMatch(/^\/chat\/file\?message=.+%3Atool-files&name=image-1\.png$/);

    // The route serves the stored bytes to a login only.
    const file = await fetch(`${web.origin}${link?.url}`, { headers: auth });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await file.arrayBuffer()).toString("base64")).toBe(onePixelPng);
    expect((await fetch(`${web.origin}${link?.url}`)).status).toBe(401);

    // A page opened later shows the same link in its history.
    const later = new EventReader();
    await later.open(`${web.origin}/chat/events?world=team`, auth);
    await waitUntil("the second snapshot arrives", () => later.events.length === 1);
    await later.close();
    const snapshot = (later.events[0] as Event).items ?? [];
    expect(snapshot.filter((item) => item.files !== undefined).map((item) => item.files)).toEqual([[link]]);
  });
});
