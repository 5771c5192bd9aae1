import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";

// docker-compose.yml cannot be run here (no Docker daemon); this reads it as Compose would
// (YAML with merge keys) and checks what a user relies on. The image itself is checked by
// .ci/run's replay of the Dockerfile (scripts/replay-dockerfile.mjs).

const root = path.resolve(import.meta.dirname, "../..");

const serviceSchema = z.object({
  build: z.unknown().optional(),
  image: z.string().optional(),
  environment: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).optional(),
  volumes: z.array(z.string()).optional(),
  ports: z.array(z.string()).optional(),
});
const composeSchema = z.object({ services: z.record(z.string(), serviceSchema) });

function composeFile() {
  const text = readFileSync(path.join(root, "docker-compose.yml"), "utf8");
  return composeSchema.parse(parse(text, { merge: true }));
}

/** The Roundtable services: the ones built from this repository's Dockerfile. */
function roundtableServices() {
  return Object.entries(composeFile().services).filter(([, service]) => service.build !== undefined);
}

describe("docker-compose.yml", () => {
  it("parses, with two Roundtable replicas on the PostgreSQL service", () => {
    const services = roundtableServices();
    expect(services.map(([name]) => name)).toEqual(["roundtable-a", "roundtable-b"]);
    for (const [, service] of services) {
      expect(service.environment?.DATABASE_URL).toMatch(/^postgresql:\/\/.+@postgres:5432\//);
    }
    expect(composeFile().services.postgres?.image).toMatch(/^postgres:/);
  });

  it("passes the provider keys, base URL and tokens through from the environment", () => {
    const passedThrough = [
      "OPENAI_API_KEY",
      "OPENAI_BASE_URL",
      "ANTHROPIC_API_KEY",
      "GEMINI_API_KEY",
      "TELEGRAM_BOT_TOKEN",
      "SLACK_BOT_TOKEN",
      "SLACK_SIGNING_SECRET",
      "SLACK_APP_TOKEN",
      "DISCORD_BOT_TOKEN",
      "WEB_CONSOLE_TOKEN",
      "METRICS_TOKEN",
    ];
    for (const [, service] of roundtableServices()) {
      for (const name of passedThrough) expect(service.environment?.[name], name).toBe(`\${${name}:-}`);
    }
  });

  it("mounts a config directory, never a single file Docker would create as a directory when missing", () => {
    for (const [, service] of roundtableServices()) {
      const binds = (service.volumes ?? []).map((volume) => volume.split(":"));
      for (const [source] of binds) expect(source).not.toMatch(/\.(ya?ml|json)$/);
      expect(binds).toContainEqual(["./config", "/app/config", "ro"]);
      // The config file is looked for in the mounted directory; `ROUNDTABLE_CONFIG=` (empty) picks the built-in default.
      expect(service.environment?.ROUNDTABLE_CONFIG).toBe(`\${ROUNDTABLE_CONFIG-/app/config/roundtable.yaml}`);
    }
  });

  it("matches the image: WORKDIR /app and the port the service listens on", () => {
    const dockerfile = readFileSync(path.join(root, "Dockerfile"), "utf8");
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(finalStage).toMatch(/^WORKDIR \/app$/m);
    expect(finalStage).toMatch(/^ENV .*\bPORT=8080\b/m);
    for (const [, service] of roundtableServices()) {
      for (const port of service.ports ?? []) expect(port).toMatch(/:8080$/);
    }
  });
});
