import { networkInterfaces } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../tools/wait-until.js";
import { EventReader, postJson, postLogin, startWebService, type WebService } from "./web-service.js";

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
    expect(logged(web, `web console: open http://localhost:${web.port}/login and log in with the token from`)).toBe(
      true,
    );
    const cookie = await web.login();
    const page = await fetch(`${web.origin}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-world="team"');
    expect(html).toContain('<script type="module" src="/assets/console.js">');
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect((await fetch(`${web.origin}/assets/console.js`)).status).toBe(200);

    reader = new EventReader();
    const stream = await reader.open(`${web.origin}/chat/events?world=team`, { cookie });
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    await waitUntil("the snapshot arrives", () => reader?.events.length === 1);
    expect(reader.events[0]).toEqual({ type: "snapshot", items: [] });

    const sent = await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", name: "ana", text: "hello", clientId: "client-0001" },
      { cookie },
    );
    expect(sent.status).toBe(202);
    await waitUntil("alice's answer arrives", () =>
      items(reader?.events ?? []).some((item) => item.kind === "message" && item.text === "Hello from alice."),
    );
    const seen = items(reader.events);
    expect(seen[0]).toMatchObject({ kind: "message", text: "hello", author: { name: "ana" } });
    const answer = seen.find((item) => item.text === "Hello from alice.");
    expect(answer?.author?.name).toBe("alice");

    // The same message sent again (a retried request) is stored once.
    const again = await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", name: "ana", text: "hello", clientId: "client-0001" },
      { cookie },
    );
    expect(await again.json()).toEqual({ status: "duplicate" });

    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", name: "ana", text: "run echo", clientId: "client-0002" },
      { cookie },
    );
    await waitUntil("the card arrives", () => items(reader?.events ?? []).some((item) => item.kind === "card"));
    const card = items(reader.events).find((item) => item.kind === "card");
    expect(card?.card).toMatchObject({ agent: "alice", tool: "shell_cmd", state: "pending", requestedFor: "ana" });
    expect(card?.card?.argumentsJson).toBe('{"command":"echo","args":["hi"]}');

    const operator = await fetch(`${web.origin}/operator?format=json`, { headers: { cookie } });
    const snapshot = (await operator.json()) as { pendingApprovals: { approvalId: string; deciders: string }[] };
    expect(snapshot.pendingApprovals).toHaveLength(1);
    expect(snapshot.pendingApprovals[0]).toMatchObject({ approvalId: card?.id, deciders: "requester (ana)" });

    // Someone else may not decide (the default approvers are the requester).
    const refused = await postJson(
      web.origin,
      "/chat/approvals",
      { world: "team", name: "bob", approvalId: card?.id, choice: "once" },
      { cookie },
    );
    expect(((await refused.json()) as { status: string }).status).toBe("not-allowed");

    const decided = await postJson(
      web.origin,
      "/chat/approvals",
      { world: "team", name: "ana", approvalId: card?.id, choice: "once" },
      { cookie },
    );
    expect(((await decided.json()) as { status: string }).status).toBe("decided");
    await waitUntil("the final answer arrives", () =>
      items(reader?.events ?? []).some((item) => item.kind === "message" && item.text === "It said hi."),
    );
    const updated = items(reader.events).filter((item) => item.id === card?.id);
    expect(updated.at(-1)?.card).toMatchObject({ state: "approved", choice: "once", decidedBy: "ana" });

    // A page that opens now gets the whole conversation from the store, the card decided.
    const later = new EventReader();
    await later.open(`${web.origin}/chat/events?world=team`, { cookie });
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

    const after = (await (await fetch(`${web.origin}/operator?format=json`, { headers: { cookie } })).json()) as {
      usage: { world: string; agent?: string; tokens: number }[];
      approvalHistory: { state: string; resultKind?: string; decidedBy?: string }[];
    };
    expect(after.usage.find((row) => row.agent === undefined)).toMatchObject({ world: "team", tokens: 74 });
    expect(after.approvalHistory).toEqual([
      expect.objectContaining({ state: "approved", decidedBy: "ana", resultKind: "ok" }),
    ]);
    const html2 = await (await fetch(`${web.origin}/operator`, { headers: { cookie } })).text();
    expect(html2).toContain("Approval history");
    expect(html2).toContain("approved (once)");
  });

  it("tells a person alone what is meant for them alone (a non-member), on the pages of their login", async () => {
    web = await startWebService({
      worldConfig: ", members: { web: [ana] }",
      extraConfig: [
        "channels:",
        "  web: { users: { ana: ana-token-0001, bob: bob-token-0002, carol: carol-token-0003 } }",
      ],
    });
    const ana = await web.login("ana-token-0001");
    const bob = await web.login("bob-token-0002");
    const carol = await web.login("carol-token-0003");
    reader = new EventReader();
    await reader.open(`${web.origin}/chat/events?world=team`, { cookie: ana });
    // Bob's page asks for ana's private replies by name: the login decides whose they are.
    const bobs = new EventReader();
    await bobs.open(`${web.origin}/chat/events?world=team&name=ana`, { cookie: bob });
    await waitUntil("both snapshots arrive", () => reader?.events.length === 1 && bobs.events.length === 1);
    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", text: "hi", clientId: "client-0101" },
      { cookie: bob },
    );
    await waitUntil("bob is told", () =>
      items(bobs.events).some((item) => item.text?.startsWith("You are not a member")),
    );
    const told = items(bobs.events).find((item) => item.text?.startsWith("You are not a member"));
    expect(told).toMatchObject({ kind: "message", private: true, author: { name: "roundtable" } });
    // Carol has no page open under her login: the world tells the chat instead.
    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", text: "hi", clientId: "client-0102" },
      { cookie: carol },
    );
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
    const cookie = await web.login();
    web.fake.script({ type: "hang", text: ["Let me think ", "about that"] });
    reader = new EventReader();
    await reader.open(`${web.origin}/chat/events?world=team&name=ana`, { cookie });
    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", name: "ana", text: "think hard", clientId: "client-0201" },
      { cookie },
    );
    await waitUntil("the draft shows", () =>
      items(reader?.events ?? []).some((item) => item.kind === "draft" && item.text === "Let me think about that"),
    );
    const stopped = await postJson(
      web.origin,
      "/chat/commands",
      { world: "team", name: "ana", command: "stop", clientId: "client-0202" },
      { cookie },
    );
    expect(stopped.status).toBe(200);
    expect(((await stopped.json()) as { status: string }).status).toBe("done");
    await waitUntil("the answer is settled", () =>
      items(reader?.events ?? []).some((item) => item.kind === "message" && item.text?.includes("stopped by ana")),
    );
    const bad = await postJson(
      web.origin,
      "/chat/commands",
      { world: "team", name: "ana", command: "Stop!", clientId: "x" },
      { cookie },
    );
    expect(bad.status).toBe(400);
    expect(logged(web, "web console: command refused")).toBe(true);
  });

  it("answers bad input with a clear status, and logs it", async () => {
    web = await startWebService();
    const cookie = await web.login();
    const post = (path: string, body: unknown) => postJson(web?.origin ?? "", path, body, { cookie });
    const notJson = await fetch(`${web.origin}/chat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "sec-fetch-site": "same-origin", cookie },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ error: "the body is not JSON" });
    expect(logged(web, "web console: message refused")).toBe(true);

    const badName = await post("/chat/messages", {
      world: "team",
      name: "<script>",
      text: "hi",
      clientId: "client-0003",
    });
    expect(badName.status).toBe(400);
    expect(((await badName.json()) as { error: string }).error).toMatch(/^name: a name of 1–40 letters/);

    const noName = await post("/chat/messages", { world: "team", text: "hi", clientId: "client-0008" });
    expect(noName.status).toBe(400);

    const empty = await post("/chat/messages", { world: "team", name: "ana", text: "  ", clientId: "client-0004" });
    expect(empty.status).toBe(400);

    const unknownWorld = await post("/chat/messages", {
      world: "nowhere",
      name: "ana",
      text: "hi",
      clientId: "client-0005",
    });
    expect(unknownWorld.status).toBe(404);
    expect(await unknownWorld.json()).toEqual({ error: 'no world named "nowhere"' });

    const badChoice = await post("/chat/approvals", { world: "team", name: "ana", approvalId: "x", choice: "always" });
    expect(badChoice.status).toBe(400);
    expect(logged(web, "web console: approval click refused")).toBe(true);

    const unknownApproval = await post("/chat/approvals", {
      world: "team",
      name: "ana",
      approvalId: "no-such-approval",
      choice: "once",
    });
    expect(((await unknownApproval.json()) as { status: string }).status).toBe("unknown");

    const page = await fetch(`${web.origin}/chat?world=nowhere`, { headers: { cookie } });
    expect(page.status).toBe(404);
    expect(await page.text()).toBe('no world named "nowhere" (worlds: team)\n');

    const wrongMethod = await fetch(`${web.origin}/chat/messages`, { headers: { cookie } });
    expect(wrongMethod.status).toBe(405);
  });

  it("refuses cross-site state changes, with a log line", async () => {
    web = await startWebService();
    const cookie = await web.login();
    web.fake.script({ type: "reply", text: ["hi ana"] });
    const body = { world: "team", name: "ana", text: "hi", clientId: "client-0006" };
    const crossSite = await postJson(web.origin, "/chat/messages", body, { "sec-fetch-site": "cross-site", cookie });
    expect(crossSite.status).toBe(403);
    expect(await crossSite.text()).toBe("forbidden: cross-site request refused (Sec-Fetch-Site is cross-site)\n");
    const foreignOrigin = await fetch(`${web.origin}/chat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://evil.example", cookie },
      body: JSON.stringify(body),
    });
    expect(foreignOrigin.status).toBe(403);
    const neither = await fetch(`${web.origin}/chat/messages`, {
      method: "POST",
      headers: { cookie },
      body: JSON.stringify(body),
    });
    expect(neither.status).toBe(403);
    const sameOrigin = await fetch(`${web.origin}/chat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: web.origin, cookie },
      body: JSON.stringify(body),
    });
    expect(sameOrigin.status).toBe(202);
    expect(logged(web, "web console refused a cross-site request")).toBe(true);
  });

  it("with WEB_CONSOLE_TOKEN asks everyone for it: login form, cookie, or bearer", async () => {
    web = await startWebService({ env: { WEB_CONSOLE_TOKEN: "s3cret-token-of-the-test" } });
    web.fake.script({ type: "reply", text: ["Say @alice and a question."] });
    expect(web.service.webLoginAddress).toBe(`http://localhost:${web.port}/login#token=s3cret-token-of-the-test`);
    expect(logged(web, "log in with the token from WEB_CONSOLE_TOKEN")).toBe(true);
    const address = outsideAddress() ?? "127.0.0.1";
    const origin = `http://${address}:${web.port}`;
    const anonymous = await fetch(`${origin}/operator`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain('<form method="post" action="/login" id="login">');
    const api = await fetch(`${origin}/chat/events?world=team`);
    expect(api.status).toBe(401);

    const wrong = await postLogin(origin, { token: "nope", next: "/operator" });
    expect(wrong.status).toBe(401);
    expect(logged(web, "web console: login with a wrong token")).toBe(true);

    const login = await postLogin(origin, { token: "s3cret-token-of-the-test", next: "/operator" });
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe("/operator");
    const cookie = login.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^roundtable_console=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict/);
    expect(cookie).not.toContain("s3cret-token-of-the-test");
    // Secure unless the login came over plain HTTP from a loopback address.
    expect(cookie.includes("; Secure")).toBe(address !== "127.0.0.1");
    const withCookie = await fetch(`${origin}/operator`, { headers: { cookie: cookie.split(";")[0] ?? "" } });
    expect(withCookie.status).toBe(200);

    const bearer = await fetch(`${origin}/operator?format=json`, {
      headers: { authorization: "Bearer s3cret-token-of-the-test" },
    });
    expect(bearer.status).toBe(200);
    // A program with the bearer token needs no browser headers to post.
    const posted = await fetch(`${origin}/chat/messages`, {
      method: "POST",
      headers: { authorization: "Bearer s3cret-token-of-the-test", "content-type": "application/json" },
      body: JSON.stringify({ world: "team", name: "ops", text: "status?", clientId: "client-0007" }),
    });
    expect(posted.status).toBe(202);
    const wrongBearer = await fetch(`${origin}/operator`, { headers: { authorization: "Bearer nope" } });
    expect(wrongBearer.status).toBe(401);
  });
});
