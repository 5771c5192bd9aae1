import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentSettingsFrom } from "../../src/app/world-settings-from-config.js";
import { loadConfig } from "../../src/config/load-config.js";
import { ConfigError } from "../../src/errors/roundtable-error.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "roundtable-identity-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function load(agentLine: string) {
  await writeFile(
    path.join(directory, "roundtable.yaml"),
    `agents:\n  - ${agentLine}\nworlds:\n  - { name: team, agents: [alice] }\n`,
  );
  return loadConfig({ env: { OPENAI_API_KEY: "sk-test" }, cwd: directory });
}

describe("agents[].displayName and agents[].avatarUrl", () => {
  it("display name defaults to the name; both reach the world's agent settings", async () => {
    const plain = await load("{ name: alice, provider: openai, model: gpt-4.1 }");
    expect(agentSettingsFrom(plain.config.agents[0] ?? expect.fail("no agent"))).toMatchObject({
      name: "alice",
      displayName: "alice",
    });
    const styled = await load(
      '{ name: alice, provider: openai, model: gpt-4.1, displayName: "Alice (release)", avatarUrl: "https://example.org/a.png" }',
    );
    expect(agentSettingsFrom(styled.config.agents[0] ?? expect.fail("no agent"))).toMatchObject({
      displayName: "Alice (release)",
      avatarUrl: "https://example.org/a.png",
    });
  });

  it("an avatar that is not a URL is refused naming the key", async () => {
    const error = await load("{ name: alice, provider: openai, model: gpt-4.1, avatarUrl: alice.png }").catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/agents\[0\]\.avatarUrl|agents\.0\.avatarUrl/);
  });
});
