/**
 * What a card shows is what runs (issue 36, Medium 4), on the real service's web console: a
 * call whose arguments repeat a key is refused as `invalid` without a card, and a card, live and
 * after a reload, shows the normalized arguments the call runs with (never the model's own
 * text), saying the length of arguments longer than the page's box.
 */
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../tools/wait-until.js";
import { EventReader, postJson, startWebService, type WebService } from "./web-service.js";

let web: WebService | undefined;
const readers: EventReader[] = [];
afterEach(async () => {
  for (const reader of readers.splice(0)) await reader.close();
  await web?.close();
  web = undefined;
});

type Card = { argumentsJson: string; lengthNotice?: string; state: string };
type Item = { kind: string; id: string; card?: Card };
type Event = { items?: Item[]; item?: Item };
const cardsOf = (events: unknown[]): Card[] =>
  (events as Event[])
    .flatMap((event) => event.items ?? (event.item ? [event.item] : []))
    .flatMap((item) => (item.kind === "card" && item.card ? [item.card] : []));

async function openChat(service: WebService, cookie: string): Promise<EventReader> {
  const reader = new EventReader();
  readers.push(reader);
  await reader.open(`${service.origin}/chat/events?world=team`, { cookie });
  await waitUntil("the snapshot arrives", () => reader.events.length > 0);
  return reader;
}

describe("a card's arguments are the ones the call runs with", () => {
  it("refuses repeated keys as invalid (no card); live and reloaded cards show the normalized JSON and a long one's length", async () => {
    web = await startWebService();
    const duplicate = `{"command":"echo",${"\n".repeat(60)}"command":"touch","args":["/tmp/owned"]}`;
    const long = "a".repeat(3000);
    // The model's own text: escapes and spacing that the parsed value does not keep.
    const spelled = `{ "\\u0063ommand" : "echo", "args" : [ "\\u0068i", "${long}" ] }`;
    const normalized = JSON.stringify({ command: "echo", args: ["hi", long] });
    web.fake.script(
      {
        type: "reply",
        toolCalls: [
          { id: "call_1", name: "shell_cmd", argumentChunks: [duplicate] },
          { id: "call_2", name: "shell_cmd", argumentChunks: [spelled] },
        ],
      },
      { type: "reply", text: ["Understood."] },
    );
    const cookie = await web.login();
    const live = await openChat(web, cookie);
    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", name: "ana", text: "go", clientId: "client-0001" },
      { cookie },
    );
    await waitUntil("the card arrives", () => cardsOf(live.events).length > 0);
    const [card] = cardsOf(live.events);
    expect(card?.argumentsJson).toBe(normalized);
    expect(card?.lengthNotice).toBe("The arguments are 3,035 characters long: the box scrolls to show them all.");

    const reloaded = await openChat(web, cookie);
    const history = cardsOf(reloaded.events);
    expect(history).toHaveLength(1);
    expect(history[0]?.argumentsJson).toBe(normalized);
    expect(history[0]?.lengthNotice).toBe(card?.lengthNotice);

    const [{ id }] = (live.events as Event[]).flatMap((event) =>
      (event.items ?? (event.item ? [event.item] : [])).filter((item) => item.kind === "card"),
    ) as [Item];
    await postJson(
      web.origin,
      "/chat/approvals",
      { world: "team", name: "ana", approvalId: id, choice: "deny" },
      { cookie },
    );
    await waitUntil("alice is asked again", () => web?.fake.requests.length === 2);
    const messages = (
      (web.fake.requests[1]?.body ?? { messages: [] }) as {
        messages: { role: string; tool_call_id?: string; content: string }[];
      }
    ).messages;
    const results = messages.filter((message) => message.role === "tool");
    expect(results.find((message) => message.tool_call_id === "call_1")?.content).toBe(
      'invalid: arguments repeat the key "command": each key may appear once',
    );
    expect(results.find((message) => message.tool_call_id === "call_2")?.content).toMatch(/^denied/);
  });
});
