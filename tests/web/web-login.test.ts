import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { request } from "node:http";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../tools/wait-until.js";
import { EventReader, logIn, postJson, postLogin, startWebService, type WebService } from "./web-service.js";

let web: WebService | undefined;
let reader: EventReader | undefined;
afterEach(async () => {
  await reader?.close();
  reader = undefined;
  await web?.close();
  web = undefined;
});

type Item = { kind: string; id: string; text?: string; author?: { name: string }; card?: Record<string, unknown> };
type Event = { type: string; items?: Item[]; item?: Item };
const items = (events: unknown[]): Item[] => (events as Event[]).flatMap((event) => (event.item ? [event.item] : []));

/**
 * What nginx's default `proxy_pass` in front of the service on the same host sends: the peer is
 * 127.0.0.1, `Host` is the upstream's loopback name, and there is no X-Forwarded-For.
 */
function sameHostProxy(
  port: number,
  method: "GET" | "POST",
  pathname: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: pathname,
        headers: {
          host: `127.0.0.1:${port}`,
          connection: "close",
          ...(body === undefined ? {} : { "content-type": "application/json", "sec-fetch-site": "same-origin" }),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    sent.on("error", reject);
    sent.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe("the web console's logins (the real service in this process)", () => {
  it("gives a same-host proxy without a token no chat, no /operator, no post and no approval", async () => {
    web = await startWebService();
    web.fake.script({
      type: "reply",
      toolCalls: [{ id: "call_1", name: "shell_cmd", argumentChunks: ['{"command":"id"}'] }],
    });
    const ana = await web.login();
    reader = new EventReader();
    await reader.open(`${web.origin}/chat/events?world=team`, { cookie: ana });
    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", name: "ana", text: "run id", clientId: "client-0301" },
      { cookie: ana },
    );
    await waitUntil("the card arrives", () => items(reader?.events ?? []).some((item) => item.kind === "card"));
    const card = items(reader.events).find((item) => item.kind === "card");

    const page = await sameHostProxy(web.port, "GET", "/");
    expect(page.status).toBe(401);
    expect(page.text).toContain('<form method="post" action="/login" id="login">');
    expect(page.text).not.toContain("run id");
    for (const pathname of ["/chat?world=team", "/chat/events?world=team", "/operator", "/operator?format=json"]) {
      const answer = await sameHostProxy(web.port, "GET", pathname);
      expect(answer.status, pathname).toBe(401);
      expect(answer.text, pathname).not.toContain("shell_cmd");
    }
    const posted = await sameHostProxy(web.port, "POST", "/chat/messages", {
      world: "team",
      name: "ana",
      text: "@alice run id",
      clientId: "client-0302",
    });
    expect(posted.status).toBe(401);
    const approved = await sameHostProxy(web.port, "POST", "/chat/approvals", {
      world: "team",
      name: "ana",
      approvalId: card?.id,
      choice: "once",
    });
    expect(approved.status).toBe(401);
    const stopped = await sameHostProxy(web.port, "POST", "/chat/commands", {
      world: "team",
      name: "ana",
      command: "stop",
      clientId: "client-0303",
    });
    expect(stopped.status).toBe(401);
    // Nothing ran and nothing was decided: the approval is still pending, one message stored.
    const operator = (await (
      await fetch(`${web.origin}/operator?format=json`, { headers: { cookie: ana } })
    ).json()) as {
      pendingApprovals: { approvalId: string }[];
    };
    expect(operator.pendingApprovals.map((pending) => pending.approvalId)).toEqual([card?.id]);
    expect(web.fake.requests).toHaveLength(1);
  });

  it("generates the shared token once into ./data/web-console-token (0600), logs where it is, never the token", async () => {
    web = await startWebService();
    const file = path.join(web.directory, "data", "web-console-token");
    expect((await readFile(file, "utf8")).trim()).toBe(web.token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(web.token.length).toBeGreaterThanOrEqual(32);
    expect(web.service.webLoginAddress).toBe(`http://localhost:${web.port}/login#token=${web.token}`);
    const line = web.logs.find((entry) => entry.msg.startsWith("web console: open"));
    expect(line).toMatchObject({ url: `http://localhost:${web.port}/login`, tokenFrom: file, generated: true });
    expect(JSON.stringify(web.logs)).not.toContain(web.token);
  });

  it("with channels.web.users, /operator is for the approvers listed under approvers.web and the shared token's holders", async () => {
    web = await startWebService({
      extraConfig: ["channels:", "  web: { users: { ana: ana-token-0001, bob: bob-token-0002 } }"],
      worldConfig: ", approvers: { web: [ana] }",
    });
    const ana = await web.login("ana-token-0001");
    const bob = await web.login("bob-token-0002");
    const shared = await web.login();
    expect((await fetch(`${web.origin}/operator`, { headers: { cookie: ana } })).status).toBe(200);
    const refused = await fetch(`${web.origin}/operator?format=json`, { headers: { cookie: bob } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("the operator view is for the people listed under approvers.web");
    expect(
      (await fetch(`${web.origin}/operator`, { headers: { authorization: "Bearer bob-token-0002" } })).status,
    ).toBe(403);
    expect((await fetch(`${web.origin}/operator`, { headers: { cookie: shared } })).status).toBe(200);
    // Bob still has the chat.
    expect((await fetch(`${web.origin}/chat?world=team`, { headers: { cookie: bob } })).status).toBe(200);
  });

  it("takes the name from a person's login, never from the page: a typed name cannot spoof another", async () => {
    web = await startWebService({
      extraConfig: ["channels:", "  web: { users: { ana: ana-token-0001, bob: bob-token-0002 } }"],
    });
    web.fake.script(
      { type: "reply", toolCalls: [{ id: "call_1", name: "shell_cmd", argumentChunks: ['{"command":"id"}'] }] },
      { type: "reply", text: ["Denied, so I stop."] },
    );
    const ana = await web.login("ana-token-0001");
    const bob = await web.login("bob-token-0002");
    const page = await (await fetch(`${web.origin}/`, { headers: { cookie: bob } })).text();
    expect(page).toContain('data-person="bob"');
    expect(page).toContain('value="bob" readonly');
    reader = new EventReader();
    await reader.open(`${web.origin}/chat/events?world=team`, { cookie: ana });
    // Bob types ana's name: the message is his.
    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", name: "ana", text: "/help", clientId: "client-0401" },
      { cookie: bob },
    );
    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", name: "bob", text: "run id", clientId: "client-0402" },
      { cookie: ana },
    );
    await waitUntil("the card arrives", () => items(reader?.events ?? []).some((item) => item.kind === "card"));
    const card = items(reader.events).find((item) => item.kind === "card");
    expect(card?.card).toMatchObject({ requestedFor: "ana" });
    const human = items(reader.events).find((item) => item.kind === "message" && item.text === "run id");
    expect(human?.author?.name).toBe("ana");
    // Bob claims to be ana, the requester: the click is his, and he may not decide.
    const spoofed = await postJson(
      web.origin,
      "/chat/approvals",
      { world: "team", name: "ana", approvalId: card?.id, choice: "once" },
      { cookie: bob },
    );
    expect(((await spoofed.json()) as { status: string }).status).toBe("not-allowed");
    // The shared token's holder acts as `operator` once people are named, whatever it types.
    const operator = await web.login();
    const asOperator = await postJson(
      web.origin,
      "/chat/approvals",
      { world: "team", name: "ana", approvalId: card?.id, choice: "once" },
      { cookie: operator },
    );
    expect(((await asOperator.json()) as { status: string }).status).toBe("not-allowed");
    // A person's bearer token is that person too.
    const byBearer = await fetch(`${web.origin}/chat/approvals`, {
      method: "POST",
      headers: { authorization: "Bearer ana-token-0001", "content-type": "application/json" },
      body: JSON.stringify({ world: "team", name: "bob", approvalId: card?.id, choice: "deny" }),
    });
    expect(((await byBearer.json()) as { status: string }).status).toBe("decided");
    await waitUntil("the card is decided", () =>
      items(reader?.events ?? []).some((item) => item.id === card?.id && item.card?.state === "denied"),
    );
    expect(items(reader.events).findLast((item) => item.id === card?.id)?.card).toMatchObject({ decidedBy: "ana" });
  });

  it("keys /stop rights on the login: another person typing the requester's name may not stop the turn", async () => {
    web = await startWebService({
      extraConfig: ["channels:", "  web: { users: { ana: ana-token-0001, bob: bob-token-0002 } }"],
    });
    web.fake.script({ type: "hang", text: ["Let me think ", "about that"] });
    const ana = await web.login("ana-token-0001");
    const bob = await web.login("bob-token-0002");
    reader = new EventReader();
    await reader.open(`${web.origin}/chat/events?world=team`, { cookie: ana });
    await postJson(
      web.origin,
      "/chat/messages",
      { world: "team", text: "think", clientId: "client-0501" },
      { cookie: ana },
    );
    await waitUntil("the draft shows", () =>
      items(reader?.events ?? []).some((item) => item.kind === "draft" && item.text === "Let me think about that"),
    );
    const byBob = await postJson(
      web.origin,
      "/chat/commands",
      { world: "team", name: "ana", command: "stop", clientId: "client-0502" },
      { cookie: bob },
    );
    expect(((await byBob.json()) as { status: string }).status).toBe("refused");
    const byAna = await postJson(
      web.origin,
      "/chat/commands",
      { world: "team", command: "stop", clientId: "client-0503" },
      { cookie: ana },
    );
    expect(((await byAna.json()) as { status: string }).status).toBe("done");
    await waitUntil("the answer is settled", () =>
      items(reader?.events ?? []).some((item) => item.kind === "message" && item.text?.includes("stopped by ana")),
    );
  });

  it("sends next=/%09/evil.example/ to a page on this site", async () => {
    web = await startWebService();
    const form = await fetch(`${web.origin}/login?next=/%09/evil.example/`);
    expect(await form.text()).toContain('<input type="hidden" name="next" value="/">');
    const login = await postLogin(web.origin, { token: web.token, next: "/\t/evil.example/" });
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe("/");
    for (const next of ["//evil.example/", "/\\evil.example/", "https://evil.example/", "/%5C/evil"]) {
      const again = await postLogin(web.origin, { token: web.token, next });
      expect(again.headers.get("location"), next).toMatch(/^\/(?!\/|\\)/);
    }
    const kept = await postLogin(web.origin, { token: web.token, next: "/operator" });
    expect(kept.headers.get("location")).toBe("/operator");
  });

  it("refuses the 11th failed login in a minute from one address, even with the right token", async () => {
    web = await startWebService();
    for (let attempt = 1; attempt <= 10; attempt++) {
      const wrong = await postLogin(web.origin, { token: `wrong-${attempt}` });
      expect(wrong.status, `attempt ${attempt}`).toBe(401);
    }
    const eleventh = await postLogin(web.origin, { token: web.token });
    expect(eleventh.status).toBe(429);
    expect(eleventh.headers.get("set-cookie")).toBeNull();
    expect(await eleventh.text()).toContain("Too many failed logins");
    const bearer = await fetch(`${web.origin}/operator`, { headers: { authorization: `Bearer ${web.token}` } });
    expect(bearer.status).toBe(429);
    expect(web.logs.some((line) => line.msg.includes("too many failed logins"))).toBe(true);
  });

  it("ends the session on POST /logout: the cookie no longer opens anything", async () => {
    web = await startWebService();
    const cookie = await logIn(web.origin, web.token);
    expect((await fetch(`${web.origin}/operator`, { headers: { cookie } })).status).toBe(200);
    const other = await logIn(web.origin, web.token);
    const logout = await fetch(`${web.origin}/logout`, {
      method: "POST",
      headers: { cookie, "sec-fetch-site": "same-origin" },
      redirect: "manual",
    });
    expect(logout.status).toBe(303);
    expect(logout.headers.get("location")).toBe("/login");
    expect(logout.headers.get("set-cookie")).toMatch(/^roundtable_console=; .*Max-Age=0/);
    expect((await fetch(`${web.origin}/operator`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${web.origin}/chat/events?world=team`, { headers: { cookie } })).status).toBe(401);
    // Another login's session goes on.
    expect((await fetch(`${web.origin}/operator`, { headers: { cookie: other } })).status).toBe(200);
  });
});
