import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnvironment, repositoryRoot } from "../cli/run-roundtable.js";
import { type FakeModelServer, startOpenAIFake } from "../fakes/openai-server.js";
import { waitUntil } from "../tools/wait-until.js";
import { teamConfig } from "./web-service.js";

/** Alice's picture: a data URL, so the page needs no network. */
const avatar = `data:image/svg+xml,${encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 40 40'><circle cx='20' cy='20' r='20' fill='#c2410c'/><text x='20' y='26' font-size='17' text-anchor='middle' fill='white' font-family='sans-serif'>Al</text></svg>",
)}`;

/** Debian's `chromium` package; `.ci/run` installs it when missing. */
const chromiumPath = "/usr/bin/chromium";
const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const screenshots = path.join(repositoryRoot, "docs", "screenshots");
// Skipped only on a developer's machine without the browser; in CI a missing browser fails.
const skip = !existsSync(chromiumPath) && process.env.CI !== "true";

let fake: FakeModelServer;
let child: ChildProcess;
let origin = "";
let directory = "";
let browser: Browser;
let stderr = "";
let stdout = "";
/** The login address `roundtable start` prints on stdout (`…/login#token=…`). */
let loginAddress = "";

/** `npm start` as a user runs it: the real CLI in a child process, its model the OpenAI fake. */
async function startRoundtable(): Promise<void> {
  directory = mkdtempSync(path.join(tmpdir(), "rt-browser-"));
  writeFileSync(
    path.join(directory, "roundtable.yaml"),
    teamConfig(directory, [], `, displayName: "Alice (release)", avatarUrl: ${JSON.stringify(avatar)}`),
  );
  // What `npm start` runs: bin/roundtable.js, which builds dist/ when sources changed, on plain Node.
  child = spawn("node", [path.join(repositoryRoot, "bin", "roundtable.js"), "start"], {
    cwd: directory,
    env: cliEnvironment({
      PORT: "0",
      LOG_LEVEL: "info",
      OPENAI_BASE_URL: fake.baseUrl,
      DATABASE_URL: `file:${path.join(directory, "data", "roundtable.db")}`,
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  await waitUntil(
    "the service prints its login address",
    () => /^web console: open \S+\n/m.test(stdout) || child.exitCode !== null,
    170_000,
  );
  const address = /^web console: open (\S+)\n/m.exec(stdout)?.[1];
  if (address === undefined) throw new Error(`the service did not start:\n${stderr}`);
  loginAddress = address;
  origin = new URL(address).origin;
}

describe.skipIf(skip)("the web console in a real browser (headless Chromium, the real service process)", () => {
  beforeAll(async () => {
    fake = await startOpenAIFake({ apiKey: "sk-test" });
    fake.script(
      { type: "reply", text: ["Hello ana, ", "I am alice. ", "Ask me to run ", "a command."], frameDelayMs: 150 },
      {
        type: "reply",
        text: ["I will list the files."],
        toolCalls: [{ id: "call_1", name: "shell_cmd", argumentChunks: ['{"command":"ls","args":["-1"]}'] }],
      },
      {
        type: "reply",
        text: ["The directory holds ", "`roundtable.yaml` and ", "the `data` folder."],
        frameDelayMs: 100,
      },
      { type: "reply", text: ["It shows a red error dialog: ", "the disk is full."] },
    );
    await startRoundtable();
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await fake?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it("sends a message, streams the answer, shows the approval in the operator view, and approves it", async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    const page = await context.newPage();
    // Without a login the network position (this very machine) gets only the login form.
    await page.goto(`${origin}/`);
    await page.locator("form#login").waitFor();
    // The printed address logs the browser in: the page reads the token from the fragment.
    await page.goto(loginAddress);
    await page.waitForURL(`${origin}/`);
    expect(page.url()).not.toContain("token");
    await page.locator("#status.connected").waitFor();
    await page.fill("#name", "ana");
    await page.dispatchEvent("#name", "change");
    // Record every text a draft shows, to see the answer written piece by piece.
    // (A string: this code runs in the page, whose DOM types the test's TypeScript does not load.)
    await page.evaluate(`
      window.drafts = [];
      new MutationObserver(() => {
        for (const draft of document.querySelectorAll(".draft .content")) window.drafts.push(draft.textContent);
      }).observe(document.getElementById("timeline"), { childList: true, subtree: true });
    `);
    await page.fill("#text", "hello, who are you?");
    await page.press("#text", "Enter");
    await page.locator(".message.kind-human", { hasText: "hello, who are you?" }).waitFor();
    const answer = page.locator(".message.kind-agent:not(.draft)", { hasText: "Ask me to run a command." });
    await answer.waitFor();
    expect(await answer.locator(".author").textContent()).toBe("Alice (release) @alice");
    expect(await answer.locator("img.avatar").getAttribute("src")).toBe(avatar);
    const drafts = (await page.evaluate("window.drafts")) as string[];
    const partial = drafts.map((text) => text.replace("▍", "")).filter((text) => text.length > 0);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.some((text) => "Hello ana, I am alice. Ask me to run a command.".startsWith(text))).toBe(true);
    expect(partial.some((text) => text.length < "Hello ana, I am alice. Ask me to run a command.".length)).toBe(true);

    await page.fill("#text", "Please list the files here.");
    await page.press("#text", "Enter");
    const card = page.locator(".card.state-pending");
    await card.waitFor();
    expect(await card.locator(".card-title").textContent()).toBe("Alice (release) wants to run shell_cmd");
    // The expiry in UTC, as the operator view writes times, not in the browser's 12-hour locale.
    expect(await card.locator(".card-meta").textContent()).toMatch(/ · expires \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(await card.locator(".arguments").textContent()).toBe('{\n  "command": "ls",\n  "args": [\n    "-1"\n  ]\n}');
    expect(await card.locator("button").allTextContents()).toEqual([
      "Approve once",
      "Approve for this session",
      "Deny",
      "Deny with reason",
    ]);

    const operator = await context.newPage();
    await operator.goto(`${origin}/operator`);
    const pending = operator.locator("#pending tbody tr");
    expect(await pending.count()).toBe(1);
    expect(await pending.textContent()).toContain("shell_cmd");
    expect(await pending.textContent()).toContain("requester (ana)");
    expect(await operator.locator("#channels").textContent()).toContain("connected");
    mkdirSync(screenshots, { recursive: true });
    await operator.screenshot({ path: path.join(screenshots, "operator.png"), fullPage: true });

    await card.locator("button", { hasText: "Approve once" }).click();
    const decided = page.locator(".card.state-approved .outcome");
    await decided.waitFor();
    expect(await decided.textContent()).toBe("Approved once by ana");
    const final = page.locator(".message.kind-agent:not(.draft)", { hasText: "the data folder." });
    await final.waitFor();
    expect(await final.locator("code").allTextContents()).toEqual(["roundtable.yaml", "data"]);
    await page.screenshot({ path: path.join(screenshots, "chat.png") });

    // The operator view refreshes itself: the approval moves to the history.
    await operator.locator("#history tbody tr", { hasText: "approved (once)" }).waitFor();
    expect(await operator.locator("#pending .empty").textContent()).toBe("No approval is waiting.");
    await context.close();
  });

  it("sends a screenshot chosen in the file input; the model gets it as image input and the answer shows", async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    const page = await context.newPage();
    await page.goto(loginAddress);
    await page.waitForURL(`${origin}/`);
    await page.locator("#status.connected").waitFor();
    await page.fill("#name", "ana");
    await page.dispatchEvent("#name", "change");
    await page.setInputFiles("#files", { name: "error.png", mimeType: "image/png", buffer: onePixelPng });
    await page.fill("#text", "@alice what does this show?");
    await page.press("#text", "Enter");
    await page.locator(".message.kind-human", { hasText: "[files: error.png]" }).waitFor();
    await page.locator(".message.kind-agent:not(.draft)", { hasText: "the disk is full." }).waitFor();
    const body = fake.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    const asked = body.messages.filter((message) => message.role === "user").at(-1);
    expect(asked?.content).toContainEqual({
      type: "image_url",
      image_url: { url: `data:image/png;base64,${onePixelPng.toString("base64")}` },
    });
    expect(await page.inputValue("#files")).toBe("");
    await page.screenshot({ path: path.join(screenshots, "chat-upload.png") });
    await context.close();
  });
});

/** A 1×1 PNG, as a screenshot stands in for. */
const onePixelPng = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
