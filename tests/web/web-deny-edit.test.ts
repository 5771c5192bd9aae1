/**
 * Deny with a reason and edit, then approve, on the real service's web console
 * (docs/approvals.md): the card carries the fields, the reason reaches the model verbatim, the
 * same call is denied again without a card, an invalid edit is answered only to the presser and
 * a valid one runs with the note.
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

type Card = { approvalId: string; state: string; inputs?: string[]; denialReason?: string; argumentsJson: string };
type Item = { kind: string; id: string; card?: Card };
type Event = { items?: Item[]; item?: Item };
const cardsOf = (events: unknown[]): Card[] =>
  (events as Event[])
    .flatMap((event) => event.items ?? (event.item ? [event.item] : []))
    .flatMap((item) => (item.kind === "card" && item.card ? [item.card] : []));

/** The tool results of the model's `index`th request. */
function toolResults(service: WebService, index: number): string[] {
  const body = (service.fake.requests[index]?.body ?? { messages: [] }) as {
    messages: { role: string; content: string }[];
  };
  return body.messages.filter((message) => message.role === "tool").map((message) => message.content);
}

const echo = (id: string, word: string) => ({
  type: "reply" as const,
  toolCalls: [{ id, name: "shell_cmd", argumentChunks: [JSON.stringify({ command: "echo", args: [word] })] }],
});

describe("deny with a reason and edit on the web console", () => {
  it("a reason reaches the model verbatim and sticks; an invalid edit is refused to the presser; a valid edit runs noted", async () => {
    web = await startWebService({ worldConfig: ", approvals: { edit: true }" });
    web.fake.script(
      echo("call_1", "hello"),
      { type: "reply", text: ["Understood."] },
      echo("call_2", "hello"),
      { type: "reply", text: ["Still no."] },
      echo("call_3", "bye"),
      { type: "reply", text: ["Done."] },
    );
    const cookie = await web.login();
    const live = new EventReader();
    readers.push(live);
    await live.open(`${web.origin}/chat/events?world=team`, { cookie });
    const say = (text: string, clientId: string) =>
      postJson(web?.origin ?? "", "/chat/messages", { world: "team", name: "ana", text, clientId }, { cookie });
    const decide = (body: Record<string, unknown>) =>
      postJson(web?.origin ?? "", "/chat/approvals", { world: "team", name: "ana", ...body }, { cookie });

    await say("go", "client-0001");
    await waitUntil("the card arrives", () => cardsOf(live.events).length > 0);
    const [card] = cardsOf(live.events);
    expect(card?.inputs).toEqual(["reason", "edit"]);
    const denied = await decide({ approvalId: card?.approvalId, choice: "deny", reason: "not now" });
    expect(denied.status).toBe(200);
    await waitUntil("alice is told", () => web?.fake.requests.length === 2);
    expect(toolResults(web, 1)).toEqual(["denied by ana: not now"]);
    await waitUntil("the card says why", () =>
      cardsOf(live.events).some((each) => each.state === "denied" && each.denialReason === "not now"),
    );

    await say("go again", "client-0002");
    await waitUntil("alice is told again", () => web?.fake.requests.length === 4);
    expect(toolResults(web, 3).at(-1)).toBe("denied: the same call was denied by ana (not now)");
    expect(new Set(cardsOf(live.events).map((each) => each.approvalId)).size).toBe(1);

    await say("say bye", "client-0003");
    await waitUntil("a second card", () => new Set(cardsOf(live.events).map((each) => each.approvalId)).size === 2);
    const second = cardsOf(live.events).at(-1);
    const invalid = await decide({
      approvalId: second?.approvalId,
      choice: "edit",
      editedArgumentsJson: '{"command":5}',
    });
    expect(await invalid.json()).toMatchObject({
      status: "invalid",
      text: expect.stringMatching(/^That edit does not fit shell_cmd: /),
    });
    const valid = await decide({
      approvalId: second?.approvalId,
      choice: "edit",
      editedArgumentsJson: '{"command":"echo","args":["edited"]}',
    });
    expect(await valid.json()).toMatchObject({ status: "decided" });
    await waitUntil("alice gets the result", () => web?.fake.requests.length === 6);
    expect(toolResults(web, 5).at(-1)).toMatch(
      /^note: ana edited the arguments before it ran: \{"command":"echo","args":\["edited"\]\}\nexit code: 0[\s\S]*edited/,
    );
    await waitUntil("the card shows the edit", () =>
      cardsOf(live.events).some(
        (each) =>
          each.approvalId === second?.approvalId && each.state === "approved" && each.argumentsJson.includes("edited"),
      ),
    );
  });
});
