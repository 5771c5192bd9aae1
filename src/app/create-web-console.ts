import { WebAdapter } from "../../channels/web/adapter.js";
import type { Config } from "../config/schema.js";
import type { Logger } from "../log/logger.js";
import type { Store } from "../world/store.js";
import { createOperatorSource } from "./operator-snapshot.js";
import { storedWebFiles } from "./web-files.js";
import { storeHistory } from "./web-history.js";

export interface WebConsoleSetup {
  config: Config;
  /** The shared token (configured or generated: see `web-console-token.ts`). */
  token: string;
  store: Store;
  logger: Logger;
  /** Every channel of the process, for the operator view's health table. */
  channelStatus: () => { platform: string; connected: boolean }[];
}

/**
 * The browser console (`channels/web`) over this process's store (logins are kept there too),
 * or nothing when `web.enabled` is false.
 */
export function createWebConsole(setup: WebConsoleSetup): WebAdapter | undefined {
  const { config, store, logger } = setup;
  if (!config.web.enabled) return undefined;
  const agents = config.agents.map((agent) => ({
    name: agent.name,
    displayName: agent.displayName ?? agent.name,
    ...(agent.avatarUrl === undefined ? {} : { avatarUrl: agent.avatarUrl }),
  }));
  const adapter = new WebAdapter({
    worlds: config.worlds.map((world) => ({
      name: world.name,
      agents: world.agents.map((name) => ({
        name,
        displayName: agents.find((agent) => agent.name === name)?.displayName ?? name,
      })),
    })),
    agents,
    token: setup.token,
    users: config.channels.web?.users ?? {},
    trustedProxies: config.web.trustedProxies,
    sessions: store,
    logger: logger.child({ platform: "web" }),
    history: storeHistory(store, new Map(agents.map((agent) => [agent.name, agent]))),
    // The generated token is a secret too: redacted in the view like a configured one.
    operator: createOperatorSource({
      config: { ...config, web: { ...config.web, token: setup.token } },
      store,
      channels: setup.channelStatus,
    }),
    ...webOperators(config),
    ...(config.files === undefined ? {} : { maxUploadBytes: config.files.maxMessageBytes }),
    files: storedWebFiles(store),
  });
  return adapter;
}

/**
 * With `channels.web.users`, the operator view (every chat's messages and approvals) is for the
 * people a world names under `approvers.web` (`"*"` there: everyone); with the shared token
 * alone every holder is an operator, as documented.
 */
function webOperators(config: Config): { operators?: { everyone: boolean; names: ReadonlySet<string> } } {
  if (Object.keys(config.channels.web?.users ?? {}).length === 0) return {};
  const listed = config.worlds.flatMap((world) => world.approvers.web ?? []);
  return { operators: { everyone: listed.includes("*"), names: new Set(listed) } };
}
