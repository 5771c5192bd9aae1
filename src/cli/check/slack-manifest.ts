import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { manifestGaps } from "../../../channels/slack/agent-view.js";
import { ConfigError } from "../../errors/roundtable-error.js";

// `roundtable check` with `channels.slack.manifest`: loaded only then. The YAML parser is imported
// statically here, not dynamically in check-platforms.ts: a dynamic import of a bundled CommonJS
// package loses its named exports (scripts/bundle.mjs refuses such a chunk).

/** Throws, naming what the manifest at `file` lacks of what the config uses; resolves when nothing. */
export async function checkManifestFile(file: string, agentView: boolean, oauth = false): Promise<void> {
  let manifest: unknown;
  try {
    manifest = parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ConfigError(
      `manifest ${file} could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const gaps = manifestGaps(manifest, { agentView, oauth });
  if (gaps.length > 0) {
    throw new ConfigError(
      `manifest ${file} lacks ${gaps.join("; ")}: update the app from channels/slack/manifest.yaml at api.slack.com/apps, then reinstall it`,
    );
  }
}
