/**
 * Slack's Agent messaging experience (#45): opening the app's Messages tab arrives as
 * `app_home_opened` with `tab: "messages"`, which sets suggested prompts naming the world's
 * agents; a question in the DM starts its own thread, "alice is thinking…" shows in that thread
 * while she works, and her answer lands there. Also: the shipped manifest type-checks against
 * `@slack/web-api`'s `Manifest` and holds every scope and event the code uses, and
 * `roundtable check` names a manifest that lacks what the config uses.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { webApi } from "@slack/bolt";
import ts from "typescript";
import { afterEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { eventsUsed, manifestGaps, scopesUsed } from "../../channels/slack/agent-view.js";
import { platformChecks } from "../../src/cli/check/check-platforms.js";
import { runCheck } from "../../src/cli/check/check-row.js";
import { configSchema } from "../../src/config/schema.js";
import { repositoryRoot } from "../cli/run-roundtable.js";
import { FakeSlack } from "../fakes/slack-api.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { ana, botToken, signingSecret, teamId, type WorldSlack, worldOnSlack } from "./world-slack.js";

type Manifest = webApi.AppsManifestCreateArguments["manifest"];

const manifestPath = path.join(repositoryRoot, "channels", "slack", "manifest.yaml");

async function shippedManifest(): Promise<Manifest> {
  // Typed as Slack's own manifest type: a field it does not know, or of the wrong shape, fails
  // the type check of this file (npm run typecheck), not only this test.
  const manifest: Manifest = parse(await readFile(manifestPath, "utf8")) as Manifest;
  return manifest;
}

let t: WorldSlack | undefined;
let fake: FakeSlack | undefined;
let scratch: string | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await fake?.close();
  fake = undefined;
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/**
 * The manifest's YAML as a TypeScript value typed `Manifest`, compiled in memory (strict, as the
 * project compiles): the diagnostics, empty when Slack's own types accept every field.
 */
function typeErrorsOf(manifest: unknown): string[] {
  const file = path.join(repositoryRoot, "tests", "slack", "manifest-typecheck.virtual.ts");
  const source = `import type { webApi } from "@slack/bolt";\nexport const manifest: webApi.AppsManifestCreateArguments["manifest"] = ${JSON.stringify(manifest, null, 2)};\n`;
  const options: ts.CompilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.fileExists = (name) => name === file || fileExists(name);
  host.getSourceFile = (name, language) =>
    name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}

describe("the Slack manifest on Agent view", () => {
  it("type-checks against @slack/web-api's Manifest (agent_view included), and a wrong field does not", async () => {
    const manifest = await shippedManifest();
    // The SDK's BotScope union (8.2) lacks `assistant:write`, which Slack's reference still names
    // for assistant.threads.setSuggestedPrompts: the one difference allowed, by name.
    const errors = typeErrorsOf(manifest);
    expect(errors.filter((error) => !error.includes('"assistant:write"'))).toEqual([]);
    expect(errors.length).toBeLessThanOrEqual(1);
    const wrong = structuredClone(manifest) as unknown as { features: { agent_view: Record<string, unknown> } };
    wrong.features.agent_view.suggested_prompts = [{ title: "no message" }];
    expect(typeErrorsOf(wrong).join("\n")).toMatch(/message/);
  });

  it("declares agent_view with a description and prompts, and holds every scope and event the code uses", async () => {
    const manifest = await shippedManifest();
    const agentView: NonNullable<NonNullable<Manifest["features"]>["agent_view"]> | undefined =
      manifest.features?.agent_view;
    expect(agentView?.agent_description?.length).toBeGreaterThan(0);
    expect(agentView?.agent_description?.length).toBeLessThanOrEqual(300);
    expect(agentView?.suggested_prompts?.length).toBeGreaterThan(0);
    expect(agentView?.suggested_prompts?.length).toBeLessThanOrEqual(4);
    expect(manifest.features).not.toHaveProperty("assistant_view");
    expect(manifest.oauth_config?.scopes?.bot).toEqual(expect.arrayContaining(scopesUsed()));
    expect(manifest.settings?.event_subscriptions?.bot_events).toEqual(
      expect.arrayContaining(eventsUsed({ agentView: true, oauth: true })),
    );
    expect(manifestGaps(manifest, { agentView: true, oauth: true })).toEqual([]);
  });

  it("roundtable check names what a manifest lacks of what the config uses", async () => {
    fake = await FakeSlack.start({ botToken, signingSecret, teamId });
    scratch = await mkdtemp(path.join(tmpdir(), "roundtable-manifest-"));
    const old = (await shippedManifest()) as unknown as {
      features: Record<string, unknown>;
      settings: { event_subscriptions: { bot_events: string[] } };
    };
    delete old.features.agent_view;
    old.settings.event_subscriptions.bot_events = old.settings.event_subscriptions.bot_events.filter(
      (event) => event !== "app_home_opened",
    );
    const file = path.join(scratch, "manifest.yaml");
    await writeFile(file, stringify(old));
    const check = async (agentView: boolean) => {
      const config = configSchema.parse({
        channels: { slack: { botToken, signingSecret, apiUrl: fake?.apiUrl, manifest: file, agentView } },
      });
      const [row] = await Promise.all(platformChecks(config).map((each) => runCheck(each.name, each.run)));
      return row;
    };
    const withAgentView = await check(true);
    expect(withAgentView?.status).toBe("FAIL");
    expect(withAgentView?.detail).toContain(`manifest ${file} lacks bot events app_home_opened`);
    expect(withAgentView?.detail).toContain("features.agent_view");
    const without = await check(false);
    expect(without?.status, without?.detail).toBe("ok");
    expect(without?.detail).toContain(`manifest ${file} holds what the config uses`);
  });
});

describe("a conversation in the app's Messages tab (agentView: true)", () => {
  it("app_home_opened → suggested prompts → a question → status → the answer in its thread", async () => {
    const alice = new ScriptedProvider(() => ({ text: "Deploys go out on Tuesdays." }));
    t = await worldOnSlack({
      mode: "http",
      agents: [{ name: "alice", provider: alice }],
      world: { defaultAgent: "alice" },
      agentConfig: { alice: { displayName: "Alice" } },
      adapter: {
        agentView: true,
        agents: [{ name: "alice", displayName: "Alice", description: "release manager" }],
      },
    });
    const opened = await t.fake.appHomeOpened({ user: ana, channel: "D0ANA" });
    expect(opened.status).toBe(200);
    await t.settle();
    const prompts = t.fake.callsTo("assistant.threads.setSuggestedPrompts");
    expect(prompts).toHaveLength(1);
    expect(prompts[0]?.ok).toBe(true);
    expect(prompts[0]?.params.channel_id).toBe("D0ANA");
    expect(JSON.parse(String(prompts[0]?.params.prompts))).toEqual([
      { title: "Alice: release manager", message: "@alice what can you do for me?" },
    ]);

    const question = await t.fake.userMessage({
      channel: "D0ANA",
      user: ana,
      text: "when do we deploy?",
      channelType: "im",
    });
    await t.settle();
    const statuses = t.fake.callsTo("assistant.threads.setStatus").map((call) => call.params);
    expect(statuses.map((params) => params.status)).toEqual(["Alice is thinking…", ""]);
    expect(statuses.every((params) => params.thread_ts === question.message.ts)).toBe(true);
    const thread = t.fake.messagesIn("D0ANA", question.message.ts);
    expect(thread.map((message) => message.text)).toEqual(["when do we deploy?", "Deploys go out on Tuesdays."]);
    // The answer is in the question's thread, not at the top of the DM.
    expect(t.fake.messagesIn("D0ANA").map((message) => message.text)).toEqual(["when do we deploy?"]);
  });

  it("without agentView the Messages tab opening sets nothing and a DM is answered in place, as before", async () => {
    t = await worldOnSlack({
      mode: "http",
      agents: [{ name: "alice", provider: new ScriptedProvider([{ text: "Here." }]) }],
      world: { defaultAgent: "alice" },
    });
    await t.fake.appHomeOpened({ user: ana, channel: "D0ANA" });
    await t.fake.userMessage({ channel: "D0ANA", user: ana, text: "hi", channelType: "im" });
    await t.settle();
    expect(t.fake.callsTo("assistant.threads.setSuggestedPrompts")).toEqual([]);
    expect(t.fake.messagesIn("D0ANA").map((message) => [message.text, message.thread_ts])).toEqual([
      ["hi", undefined],
      ["Here.", undefined],
    ]);
  });
});
