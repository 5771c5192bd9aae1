import { get } from "node:http";
import { networkInterfaces } from "node:os";
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

type Item = {
  kind: string;
  id: string;
  text?: string;
  private?: boolean;
  author?: { name: string };
  card?: Record<string, unknown>;
};
type Event = { type: string; items?: Item[]; item?: Item; id?: string };

function items(events: unknown[]): Item[] {
  return (events as Event[]).flatMap((event) => (event.item ? [event.item] : []));
}

function logged(service: WebService, text: string): boolean {
  return service.logs.some((line) => line.msg.includes(text));
}

/** A non-loopback address of this machine, when it has one. */
function outsideAddress(): string | undefined {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) if (!entry.internal && entry.family === "IPv4") return entry.address;
  }
  return undefined;
}

describe("the web console's chat (the real service in this process, the OpenAI SDK against its fake)", () => {
  it("serves the page, streams the answer to a message, and carries an approval through a click", async () => {
    web = await startWebService();
    web.fake.script(
      { type: "reply", text: ["Hello ", "from ", "alice."], usage: { inputTokens: 12, outputTokens: 3 } },
      {
        type: "reply",
        toolCalls: [{ id: "call_1", name: "shell_cmd", argumentChunks: ['{"command":"echo","args":["hi"]}'] }],
        usage: { inputTokens: 20, outputTokens: 5 },
      },
      { type: "reply", text: ["It said hi."], usage: { inputTokens: 30, outputTokens: 4 } },
    );
    expect(logged(web, `web console: open http://localhost:${web.port}/`)).toBe(true);
    const page = await fetch(`${web.origin}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-world="team"');
    expect(html).toContain('<script type="module" src="/assets/console.js">');
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect((await fetch(`${web.origin}/assets/console.js`)).status).toBe(200);

    reader = new EventReader();
    const stream = await reader.open(`${web.origin}/chat/events?world=team`);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    await waitUntil("the snapshot arrives", () => reader?.events.length === 1);
    expect(reader.events[0]).toEqual({ type: "snapshot", items: [] });

    const sent = await postJson(web.origin, "/chat/messages", {
      world: "team",
      name: "ana",
      text: "hello",
      clientId: "client-0001",
    });
    expect(sent.status).toBe(202);
    await waitUntil("alice's answer arrives", () =>
      items(reader?.events ?? []).some((item) => item.kind === "message" && item.text === "Hello from alice."),
    );
    const seen = items(reader.events);
    expect(seen[0]).toMatchObject({ kind: "message", text: "hello", author: { name: "ana" } });
    const answer = seen.find((item) => item.text === "Hello from alice.");
    expect(answer?.author?.name).toBe("alice");

    // The same message sent again (a retried request) is stored once.
    const again = await postJson(web.origin, "/chat/messages", {
      world: "team",
      name: "ana",
      text: "hello",
      clientId: "client-0001",
    });
    expect(await again.json()).toEqual({ status: "duplicate" });

    await postJson(web.origin, "/chat/messages", {
      world: "team",
      name: "ana",
      text: "run echo",
      clientId: "client-0002",
    });
    await waitUntil("the card arrives", () => items(reader?.events ?? []).some((item) => item.kind === "card"));
    const card = items(reader.events).find((item) => item.kind === "card");
    expect(card?.card).toMatchObject({ agent: "alice", tool: "shell_cmd", state: "pending", requestedFor: "ana" });
    expect(card?.card?.argumentsJson).toBe('{"command":"echo","args":["hi"]}');

    const operator = await fetch(`${web.origin}/operator?format=json`);
    const snapshot = (await operator.json()) as { pendingApprovals: { approvalId: string; deciders: string }[] };
    expect(snapshot.pendingApprovals).toHaveLength(1);
    expect(snapshot.pendingApprovals[0]).toMatchObject({ approvalId: card?.id, deciders: "requester (ana)" });

    // Someone else may not decide (the default approvers are the requester).
    const refused = await postJson(web.origin, "/chat/approvals", {
      world: "team",
      name: "bob",
      approvalId: card?.id,
      choice: "once",
    });
    expect(((await refused.json()) as { status: string }).status).toBe("not-allowed");

    const decided = await postJson(web.origin, "/chat/approvals", {
      world: "team",
      name: "ana",
      approvalId: card?.id,
      choice: "once",
    });
    expect(((await decided.json()) as { status: string }).status).toBe("decided");
    await waitUntil("the final answer arrives", () =>
      items(reader?.events ?? []).some((item) => item.kind === "message" && item.text === "It said hi."),
    );
    const updated = items(reader.events).filter((item) => item.id === card?.id);
    expect(updated.at(-1)?.card).toMatchObject({ state: "approved", choice: "once", decidedBy: "ana" });

    // A page that opens now gets the whole conversation from the store, the card decided.
    const later = new EventReader();
    await later.open(`${web.origin}/chat/events?world=team`);
    await waitUntil("the second snapshot arrives", () => later.events.length === 1);
    await later.close();
    const history = (later.events[0] as Event).items ?? [];
    expect(history.map((item) => item.text ?? item.kind)).toEqual([
      "hello",
      "Hello from alice.",
      "run echo",
      "card",
      "It said hi.",
    ]);
    expect(history[3]?.card).toMatchObject({ state: "approved", decidedBy: "ana", tool: "shell_cmd" });

    const after = (await (await fetch(`${web.origin}/operator?format=json`)).json()) as {
      usage: { world: string; agent?: string; tokens: number }[];
      approvalHistory: { state: string; resultKind?: string; decidedBy?: string }[];
    };
    expect(after.usage.find((row) => row.agent === undefined)).toMatchObject({ world: "team", tokens: 74 });
    expect(after.approvalHistory).toEqual([
      expect.objectContaining({ state: "approved", decidedBy: "ana", resultKind: "ok" }),
    ]);
    const html2 = await (await fetch(`${web.origin}/operator`)).text();
    expect(html2).toContain("Approval history");
    expect(html2).toContain("approved (once)");
  });

  it("tells a person alone what is meant for them alone (a non-member), on the pages opened under their name", async () => {
    web = await startWebService({ worldConfig: ", members: { web: [ana] }" });
    reader = new EventReader();
    await reader.open(`${web.origin}/chat/events?world=team&name=ana`);
    const bobs = new EventReader();
    await bobs.open(`${web.origin}/chat/events?world=team&name=bob`);
    await waitUntil("both snapshots arrive", () => reader?.events.length === 1 && bobs.events.length === 1);
    await postJson(web.origin, "/chat/messages", { world: "team", name: "bob", text: "hi", clientId: "client-0101" });
    await waitUntil("bob is told", () =>
      items(bobs.events).some((item) => item.text?.startsWith("You are not a member")),
    );
    const told = items(bobs.events).find((item) => item.text?.startsWith("You are not a member"));
    expect(told).toMatchObject({ kind: "message", private: true, author: { name: "roundtable" } });
    // Carol has no page open under her name: the world tells the chat instead.
    await postJson(web.origin, "/chat/messages", { world: "team", name: "carol", text: "hi", clientId: "client-0102" });
    await waitUntil("the chat is told", () =>
      items(reader?.events ?? []).some((item) => item.text?.startsWith("You are not a member")),
    );
    await bobs.close();
    const anaSaw = items(reader.events).filter((item) => item.text?.startsWith("You are not a member"));
    expect(anaSaw).toHaveLength(1);
    expect(anaSaw[0]?.private).toBeUndefined();
  });

  it("the Stop button of an answer being written ends the turn, keeping what was written", async () => {
    web = await startWebService();
    web.fake.script({ type: "hang", text: ["Let me think ", "about that"] });
    reader = new EventReader();
    await reader.open(`${web.origin}/chat/events?world=team&name=ana`);
    await postJson(web.origin, "/chat/messages", {
      world: "team",
      name: "ana",
      text: "think hard",
      clientId: "client-0201",
    });
    await waitUntil("the draft shows", () =>
      items(reader?.events ?? []).some((item) => item.kind === "draft" && item.text === "Let me think about that"),
    );
    const stopped = await postJson(web.origin, "/chat/commands", {
      world: "team",
      name: "ana",
      command: "stop",
      clientId: "client-0202",
    });
    expect(stopped.status).toBe(200);
    expect(((await stopped.json()) as { status: string }).status).toBe("done");
    await waitUntil("the answer is settled", () =>
      items(reader?.events ?? []).some((item) => item.kind === "message" && item.text?.includes("stopped by ana")),
    );
    const bad = await postJson(web.origin, "/chat/commands", {
      world: "team",
      name: "ana",
      command: "Stop!",
      clientId: "x",
    });
    expect(bad.status).toBe(400);
    expect(logged(web, "web console: command refused")).toBe(true);
  });

  it("answers bad input with a clear status, and logs it", async () => {
    web = await startWebService();
    const notJson = await fetch(`${web.origin}/chat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ error: "the body is not JSON" });
    expect(logged(web, "web console: message refused")).toBe(true);

    const badName = await postJson(web.origin, "/chat/messages", {
      world: "team",
      name: "<script>",
      text: "hi",
      clientId: "client-0003",
    });
    expect(badName.status).toBe(400);
    expect(((await badName.json()) as { error: string }).error).toMatch(/^name: a name of 1–40 letters/);

    const empty = await postJson(web.origin, "/chat/messages", {
      world: "team",
      name: "ana",
      text: "  ",
      clientId: "client-0004",
    });
    expect(empty.status).toBe(400);

    const unknownWorld = await postJson(web.origin, "/chat/messages", {
      world: "nowhere",
      name: "ana",
      text: "hi",
      clientId: "client-0005",
    });
    expect(unknownWorld.status).toBe(404);
    expect(await unknownWorld.json()).toEqual({ error: 'no world named "nowhere"' });

    const badChoice = await postJson(web.origin, "/chat/approvals", {
      world: "team",
      name: "ana",
      approvalId: "x",
      choice: "always",
    });
    expect(badChoice.status).toBe(400);
    expect(logged(web, "web console: approval click refused")).toBe(true);

    const unknownApproval = await postJson(web.origin, "/chat/approvals", {
      world: "team",
      name: "ana",
      approvalId: "no-such-approval",
      choice: "once",
    });
    expect(((await unknownApproval.json()) as { status: string }).status).toBe("unknown");

    const page = await fetch(`${web.origin}/chat?world=nowhere`);
    expect(page.status).toBe(404);
    expect(await page.text()).toBe('no world named "nowhere" (worlds: team)\n');

    const wrongMethod = await fetch(`${web.origin}/chat/messages`);
    expect(wrongMethod.status).toBe(405);
  });

  it("refuses cross-site state changes, with a log line", async () => {
    web = await startWebService();
    web.fake.script({ type: "reply", text: ["hi ana"] });
    const body = { world: "team", name: "ana", text: "hi", clientId: "client-0006" };
    const crossSite = await postJson(web.origin, "/chat/messages", body, { "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(403);
    expect(await crossSite.text()).toBe("forbidden: cross-site request refused (Sec-Fetch-Site is cross-site)\n");
    const foreignOrigin = await fetch(`${web.origin}/chat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://evil.example" },
      body: JSON.stringify(body),
    });
    expect(foreignOrigin.status).toBe(403);
    const neither = await fetch(`${web.origin}/chat/messages`, { method: "POST", body: JSON.stringify(body) });
    expect(neither.status).toBe(403);
    const sameOrigin = await fetch(`${web.origin}/chat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: web.origin },
      body: JSON.stringify(body),
    });
    expect(sameOrigin.status).toBe(202);
    expect(logged(web, "web console refused a cross-site request")).toBe(true);
  });

  it("without WEB_CONSOLE_TOKEN answers only the machine itself", async () => {
    web = await startWebService();
    // fetch() may not set Host; a page whose DNS name was rebound to 127.0.0.1 sends its own name.
    const rebound = await new Promise<number | undefined>((resolve, reject) => {
      get(`${web?.origin}/`, { headers: { host: "attacker.example" } }, (response) => {
        response.resume();
        resolve(response.statusCode);
      }).on("error", reject);
    });
    expect(rebound).toBe(403);
    const proxied = await fetch(`${web.origin}/`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(proxied.status).toBe(403);
    expect(await proxied.text()).toContain("set WEB_CONSOLE_TOKEN");
    // Health stays open to probes from anywhere.
    expect((await fetch(`${web.origin}/healthz`, { headers: { "x-forwarded-for": "203.0.113.9" } })).status).toBe(200);

    const address = outsideAddress();
    if (address === undefined) return; // no non-loopback interface here: access.test.ts covers the decision
    const outside = await fetch(`http://${address}:${web.port}/operator`);
    expect(outside.status).toBe(403);
    expect(await outside.text()).toBe(
      `forbidden: request from ${address}: without WEB_CONSOLE_TOKEN the web console answers only on 127.0.0.1 and ::1\n`,
    );
    expect(logged(web, `web console refused: request from ${address}`)).toBe(true);
  });

  it("with WEB_CONSOLE_TOKEN asks everyone for it: login form, cookie, or bearer", async () => {
    web = await startWebService({ env: { WEB_CONSOLE_TOKEN: "s3cret-token" } });
    web.fake.script({ type: "reply", text: ["Say @alice and a question."] });
    const address = outsideAddress() ?? "127.0.0.1";
    const origin = `http://${address}:${web.port}`;
    const anonymous = await fetch(`${origin}/operator`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain('<form method="post" action="/login">');
    const api = await fetch(`${origin}/chat/events?world=team`);
    expect(api.status).toBe(401);

    const wrong = await fetch(`${origin}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" },
      body: "token=nope&next=%2Foperator",
      redirect: "manual",
    });
    expect(wrong.status).toBe(401);
    expect(logged(web, "web console: login with a wrong token")).toBe(true);

    const login = await fetch(`${origin}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" },
      body: "token=s3cret-token&next=%2Foperator",
      redirect: "manual",
    });
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe("/operator");
    const cookie = login.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^roundtable_console=[\w-]+; Path=\/; HttpOnly; SameSite=Strict/);
    expect(cookie).not.toContain("s3cret-token");
    const withCookie = await fetch(`${origin}/operator`, { headers: { cookie: cookie.split(";")[0] ?? "" } });
    expect(withCookie.status).toBe(200);

    const bearer = await fetch(`${origin}/operator?format=json`, { headers: { authorization: "Bearer s3cret-token" } });
    expect(bearer.status).toBe(200);
    // A program with the bearer token needs no browser headers to post.
    const posted = await fetch(`${origin}/chat/messages`, {
      method: "POST",
      headers: { authorization: "Bearer s3cret-token", "content-type": "application/json" },
      body: JSON.stringify({ world: "team", name: "ops", text: "status?", clientId: "client-0007" }),
    });
    expect(posted.status).toBe(202);
    const wrongBearer = await fetch(`${origin}/operator`, { headers: { authorization: "Bearer nope" } });
    expect(wrongBearer.status).toBe(401);
  });
});
