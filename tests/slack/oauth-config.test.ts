import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { platformChecks } from "../../src/cli/check/check-platforms.js";
import { runCheck } from "../../src/cli/check/check-row.js";
import { loadConfig } from "../../src/config/load-config.js";
import { configSchema } from "../../src/config/schema.js";
import { repositoryRoot } from "../cli/run-roundtable.js";
import { FakeSlack } from "../fakes/slack-api.js";

// `channels.slack.oauth` (docs/slack.md, "Add to Slack"): the config that turns it on, what it
// refuses, and the `roundtable check` row it gets with no bot token.

let directory: string;
let fake: FakeSlack | undefined;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-slack-oauth-"));
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await rm(directory, { recursive: true, force: true });
});

const secretKey = randomBytes(32).toString("base64");
const oauthYaml = `
agents:
  - { name: alice, provider: openai, model: gpt-4.1 }
worlds:
  - { name: main, agents: [alice] }
channels:
  slack:
    signingSecret: signing-secret
    oauth: { clientId: "1111.2222", clientSecret: client-secret, stateSecret: state-secret-0123456789 }
    chats: { "T0ALPHA/C0TEAM": main }
`;

async function load(yaml: string, env: Record<string, string>) {
  await writeFile(path.join(directory, "roundtable.yaml"), yaml);
  return loadConfig({ env: { OPENAI_API_KEY: "sk-test", ...env }, cwd: directory });
}

async function refusal(yaml: string, env: Record<string, string>): Promise<string> {
  try {
    await load(yaml, env);
  } catch (error) {
    return String((error as Error).message);
  }
  throw new Error("the config was accepted");
}

describe("channels.slack.oauth", () => {
  it("turns Slack on with no bot token, the key from ROUNDTABLE_SECRET_KEY; SLACK_BOT_TOKEN is not taken", async () => {
    const loaded = await load(oauthYaml, { ROUNDTABLE_SECRET_KEY: secretKey, SLACK_BOT_TOKEN: "xoxb-one-workspace" });
    expect(loaded.config.channels.slack?.botToken).toBeUndefined();
    expect(loaded.config.channels.slack?.oauth).toMatchObject({ clientId: "1111.2222", secretKey });
    expect(loaded.config.channels.slack?.chats).toEqual({ "T0ALPHA/C0TEAM": "main" });
  });

  it("refuses it without ROUNDTABLE_SECRET_KEY, next to a bot token, or with a short state secret", async () => {
    expect(await refusal(oauthYaml, {})).toContain("set ROUNDTABLE_SECRET_KEY (32 random bytes");
    const both = oauthYaml.replace(
      "signingSecret: signing-secret",
      "signingSecret: signing-secret\n    botToken: xoxb-x",
    );
    expect(await refusal(both, { ROUNDTABLE_SECRET_KEY: secretKey })).toContain("do not go together");
    const short = oauthYaml.replace("state-secret-0123456789", "short");
    expect(await refusal(short, { ROUNDTABLE_SECRET_KEY: secretKey })).toContain(
      "channels.slack.oauth.stateSecret: expected at least 16 characters",
    );
  });

  it("roundtable check has a Slack row with only oauth: the client known to Slack, the key usable", async () => {
    fake = await FakeSlack.start({
      botToken: "xoxb-unused",
      signingSecret: "signing-secret",
      oauthApp: { clientId: "1111.2222", clientSecret: "client-secret" },
    });
    const check = async (oauth: Record<string, unknown>, slack: Record<string, unknown> = {}) => {
      const config = configSchema.parse({
        channels: {
          slack: {
            ...slack,
            signingSecret: "signing-secret",
            apiUrl: fake?.apiUrl,
            oauth: { clientId: "1111.2222", stateSecret: "state-secret-0123456789", secretKey, ...oauth },
          },
        },
      });
      const checks = platformChecks(config);
      expect(checks.map((each) => each.name)).toEqual(["slack"]);
      const [row] = await Promise.all(checks.map((each) => runCheck(each.name, each.run)));
      return row;
    };
    const good = await check({ clientSecret: "client-secret" });
    expect(good?.status, good?.detail).toBe("ok");
    expect(good?.detail).toContain("Add to Slack: client 1111.2222 known to Slack, installs at /slack/install");
    const wrongSecret = await check({ clientSecret: "not-it" });
    expect(wrongSecret?.status).toBe("FAIL");
    expect(wrongSecret?.detail).toContain("bad_client_secret");
    const badKey = await check({ clientSecret: "client-secret", secretKey: "c2hvcnQ=" });
    expect(badKey?.status).toBe("FAIL");
    expect(badKey?.detail).toContain("ROUNDTABLE_SECRET_KEY must be 32 bytes");
    // A manifest without the uninstall events: with oauth, check names them.
    const shipped = parse(await readFile(path.join(repositoryRoot, "channels", "slack", "manifest.yaml"), "utf8")) as {
      settings: { event_subscriptions: { bot_events: string[] } };
    };
    const events = shipped.settings.event_subscriptions;
    events.bot_events = events.bot_events.filter((event) => event !== "app_uninstalled" && event !== "tokens_revoked");
    const manifest = path.join(directory, "manifest.yaml");
    await writeFile(manifest, stringify(shipped));
    const lacking = await check({ clientSecret: "client-secret" }, { manifest });
    expect(lacking?.status).toBe("FAIL");
    expect(lacking?.detail).toContain("lacks bot events app_uninstalled, tokens_revoked");
    // The check exchanged no real code: nothing is installed.
    expect(fake.workspaces.size).toBe(1);
  });
});
