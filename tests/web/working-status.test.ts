/**
 * Status while agents work, on the web console: the chat's pages get a `working` event
 * ("alice is thinking…") when the model call starts, cleared at the first token; during a tool
 * run "alice is running shell_cmd…", cleared when it is done. The page shows it under the
 * timeline.
 */
import { afterEach, describe, expect, it } from "vitest";
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

type Event = { type: string; agent?: string; text?: string; item?: { kind: string; text?: string } };

describe("the web console's status line while an agent works", () => {
  it("says alice is thinking until her first token, and running shell_cmd while it runs", async () => {
    web = await startWebService({ extraConfig: ["tools: { approval: { shell_cmd: never } }"] });
    web.fake.script(
      {
        type: "reply",
        toolCalls: [{ id: "call_1", name: "shell_cmd", argumentChunks: ['{"command":"echo","args":["hi"]}'] }],
      },
      { type: "reply", text: ["It ", "said ", "hi."] },
    );
    const auth = { authorization: `Bearer ${web.token}` };
    const page = await (await fetch(`${web.origin}/`, { headers: auth })).text();
    expect(page).toContain('<p class="working" id="working" aria-live="polite" hidden></p>');
    reader = new EventReader();
    await reader.open(`${web.origin}/chat/events?world=team`, auth);
    await waitUntil("the snapshot arrives", () => reader?.events.length === 1);
    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", name: "ana", text: "hi", clientId: "client-0001" },
      auth,
    );
    await waitUntil("alice's answer arrives", () =>
      ((reader?.events ?? []) as Event[]).some(
        (event) => event.item?.kind === "message" && event.item.text === "It said hi.",
      ),
    );
    const events = reader.events as Event[];
    const working = events.flatMap((event) => (event.type === "working" ? [event] : []));
    expect(working).toEqual([
      { type: "working", agent: "alice", text: "alice is thinking…" },
      { type: "working", agent: "alice", text: "" },
      { type: "working", agent: "alice", text: "alice is running shell_cmd…" },
      { type: "working", agent: "alice", text: "" },
      { type: "working", agent: "alice", text: "alice is thinking…" },
      { type: "working", agent: "alice", text: "" },
    ]);
    // The last status is cleared before the answer's first words show.
    const lastClear = events.lastIndexOf(working[5] as Event);
    const firstDraft = events.findIndex((event) => event.item?.kind === "draft" && event.item.text?.startsWith("It"));
    expect(lastClear).toBeGreaterThanOrEqual(0);
    expect(firstDraft === -1 || lastClear < firstDraft).toBe(true);
  });
});
