import { priceOf } from "../agents/model-price.js";
import { platforms } from "../world/chat-ref.js";
import { hasCostCap } from "../world/limits/budget-caps.js";
import type { WorldLimitSettings } from "../world/world-settings.js";
import type { ConfigProblem } from "./format-config-issues.js";
import {
  apiKeyVariablesText,
  builtInProviderNames,
  isBuiltInProviderName,
  requiresApiKey,
} from "./provider-environment.js";
import { linearPatternProblem } from "../tools/linear-pattern.js";
import type { Config } from "./schema.js";
import { checkToolName } from "./tool-names.js";
import { checkAutonomous } from "./check-autonomous.js";
import { checkQuorum } from "./check-quorum.js";

export interface ReferenceCheckOptions {
  /** The built-in default may run without a provider key (its agent then says so). */
  allowMissingApiKeys?: boolean;
}

/**
 * Checks what zod cannot: names that must match across sections, unique names, provider keys
 * for providers in use, tool names, platform names. Paths point into the file as written.
 */
export function checkReferences(config: Config, options: ReferenceCheckOptions = {}): ConfigProblem[] {
  return [
    ...checkUniqueNames(config),
    ...checkProviders(config, options),
    ...checkServerNames(config),
    ...checkAgentTools(config),
    ...checkWorlds(config),
    ...checkChannels(config),
    ...checkWebPeople(config),
    ...checkTranscription(config),
    ...checkAutonomous(config),
    ...checkQuorum(config),
    ...checkBudgets(config),
  ];
}

/**
 * Budgets (docs/budgets.md): `perAgent` names agents of the world; with a cost cap, every agent
 * of the world needs a price (`agents[].price` or a known one) unless `unpriced: count-tokens`.
 */
function checkBudgets(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  config.worlds.forEach((world, worldIndex) => {
    const limits = world.limits;
    for (const name of Object.keys(limits.perAgent ?? {})) {
      if (!world.agents.includes(name)) {
        problems.push({
          path: ["worlds", worldIndex, "limits", "perAgent", name],
          message: `${JSON.stringify(name)} is not one of the world's agents (${world.agents.join(", ")})`,
        });
      }
    }
    if (limits.unpriced === "count-tokens" || !hasCostCap(worldSettingsLimits(limits))) return;
    for (const name of world.agents) {
      const agent = config.agents.find((candidate) => candidate.name === name);
      if (!agent || priceOf(agent)) continue;
      problems.push({
        path: ["worlds", worldIndex, "limits"],
        message: `agent ${JSON.stringify(name)} (model ${agent.model}) has no price, so a cost cap cannot count it: give it agents[].price: { input, output } (USD per million tokens), or set limits.unpriced: count-tokens to charge it only against token caps`,
      });
    }
  });
  return problems;
}

/** `files.transcribe` names a provider that speaks OpenAI's API (declared, or the built-in `openai`). */
function checkTranscription(config: Config): ConfigProblem[] {
  const name = config.files.transcribe;
  if (name === undefined) return [];
  const provider = config.providers[name];
  const type = provider?.type ?? (isBuiltInProviderName(name) ? name : undefined);
  if (provider === undefined && !isBuiltInProviderName(name)) {
    const declared = Object.keys(config.providers);
    const known = declared.length > 0 ? `providers: ${declared.join(", ")}` : "no providers are declared";
    return [{ path: ["files", "transcribe"], message: `unknown provider ${JSON.stringify(name)} (${known})` }];
  }
  if (type !== "openai")
    return [
      {
        path: ["files", "transcribe"],
        message: `provider ${JSON.stringify(name)} is of type ${type ?? "unknown"}; transcription needs an OpenAI-compatible provider (type: openai)`,
      },
    ];
  return [];
}

function checkUniqueNames(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [section, items] of [
    ["agents", config.agents],
    ["worlds", config.worlds],
  ] as const) {
    const seen = new Map<string, number>();
    items.forEach((item, index) => {
      const first = seen.get(item.name);
      if (first === undefined) seen.set(item.name, index);
      else {
        const kind = section === "agents" ? "agent" : "world";
        problems.push({
          path: [section, index, "name"],
          message: `duplicate ${kind} name ${JSON.stringify(item.name)} (also ${section}[${first}])`,
        });
      }
    });
  }
  return problems;
}

/**
 * MCP tools are named `<server>__<tool>`: two servers where one's prefix starts the other's
 * (`notes` and `notes_`: `notes___x` is either) would make a tool name mean two things.
 */
function checkServerNames(config: Config): ConfigProblem[] {
  const names = Object.keys(config.tools.mcpServers);
  const problems: ConfigProblem[] = [];
  for (const name of names) {
    const clash = names.find((other) => other !== name && `${name}__`.startsWith(`${other}__`));
    if (clash === undefined) continue;
    problems.push({
      path: ["tools", "mcpServers", name],
      message: `server name ${JSON.stringify(name)} makes tool names ambiguous with server ${JSON.stringify(clash)} (${clash}__… could be either); rename one`,
    });
  }
  return problems;
}

function checkProviders(config: Config, options: ReferenceCheckOptions): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [name, provider] of Object.entries(config.providers)) {
    if (isBuiltInProviderName(name)) {
      if (provider.type !== undefined && provider.type !== name) {
        problems.push({
          path: ["providers", name, "type"],
          message: `${JSON.stringify(provider.type)} conflicts with the provider's name (a provider named ${name} is of type ${name})`,
        });
      }
    } else if (provider.type === undefined) {
      problems.push({
        path: ["providers", name, "type"],
        message: `missing (expected "openai", "anthropic", "google" or "scripted" for a provider not named after its type)`,
      });
    }
  }
  const reported = new Set<string>();
  config.agents.forEach((agent, index) => {
    const provider = config.providers[agent.provider];
    if (provider === undefined) {
      const declared = Object.keys(config.providers);
      const known = declared.length > 0 ? `providers: ${declared.join(", ")}` : "no providers are declared";
      problems.push({
        path: ["agents", index, "provider"],
        message: `unknown provider ${JSON.stringify(agent.provider)} (${known}; ${builtInProviderNames.join(", ")} need no entry)`,
      });
      return;
    }
    const type = provider.type;
    if (options.allowMissingApiKeys || type === undefined || provider.apiKey !== undefined) return;
    if (!requiresApiKey(type, provider) || reported.has(agent.provider)) return;
    reported.add(agent.provider);
    const variables = isBuiltInProviderName(agent.provider) ? ` or ${apiKeyVariablesText(type)}` : "";
    problems.push({
      path: ["agents", index, "provider"],
      message: `provider ${JSON.stringify(agent.provider)} has no API key (set providers.${agent.provider}.apiKey${variables})`,
    });
  });
  return problems;
}

function checkAgentTools(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  config.agents.forEach((agent, agentIndex) => {
    agent.tools.forEach((tool, toolIndex) => {
      const message = checkToolName(tool, config.tools);
      if (message) problems.push({ path: ["agents", agentIndex, "tools", toolIndex], message });
    });
  });
  for (const tool of Object.keys(config.tools.approval)) {
    const message = checkToolName(tool, config.tools);
    if (message) problems.push({ path: ["tools", "approval", tool], message });
  }
  config.tools.rules.forEach((rule, index) => {
    const message = checkToolName(rule.tool, config.tools);
    if (message) problems.push({ path: ["tools", "rules", index, "tool"], message });
    for (const [name, pattern] of Object.entries(rule.match)) {
      // Checked by the engine that matches rules (RE2): a lookahead JavaScript accepts would pass
      // here and then never match.
      const why = linearPatternProblem(pattern);
      if (why !== undefined) {
        problems.push({
          path: ["tools", "rules", index, "match", name],
          message: `expected a regular expression in RE2 syntax, got ${JSON.stringify(pattern)} (RE2 refuses: ${why})`,
        });
      }
    }
  });
  return problems;
}

function checkWorlds(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (config.worlds.length === 0) {
    problems.push({
      path: ["worlds"],
      message: "expected at least 1 world, e.g. worlds: [{ name: team, agents: [alice] }]",
    });
  }
  const agentNames = config.agents.map((agent) => agent.name);
  const known = agentNames.length > 0 ? `agents: ${agentNames.join(", ")}` : "no agents are declared";
  config.worlds.forEach((world, worldIndex) => {
    const seen = new Set<string>();
    world.agents.forEach((name, agentIndex) => {
      const path = ["worlds", worldIndex, "agents", agentIndex];
      if (!agentNames.includes(name))
        problems.push({ path, message: `unknown agent ${JSON.stringify(name)} (${known})` });
      else if (seen.has(name)) problems.push({ path, message: `agent ${JSON.stringify(name)} is listed twice` });
      seen.add(name);
    });
    if (world.defaultAgent !== undefined && !world.agents.includes(world.defaultAgent)) {
      problems.push({
        path: ["worlds", worldIndex, "defaultAgent"],
        message: `${JSON.stringify(world.defaultAgent)} is not one of the world's agents (${world.agents.join(", ")})`,
      });
    }
    for (const platform of Object.keys(world.approvers)) {
      if (!(platforms as readonly string[]).includes(platform)) {
        problems.push({
          path: ["worlds", worldIndex, "approvers", platform],
          message: `unknown platform (expected one of: ${platforms.join(", ")})`,
        });
      }
    }
  });
  return problems;
}

/** The shortest shared web token taken. */
const minWebTokenLength = 16;

/**
 * The shared token is long enough. Names under `approvers.web` or `members.web` mean something only when logins name people:
 * with the shared token alone anyone holding it types any name, so such a list is refused.
 */
function checkWebPeople(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  // The shared token is operator rights: one short enough to guess is refused (generated ones are 32).
  const token = config.web.token?.trim() ?? "";
  if (config.web.enabled && token !== "" && token.length < minWebTokenLength) {
    problems.push({
      path: ["web", "token"],
      message: `the web console's shared token (WEB_CONSOLE_TOKEN) must be at least ${minWebTokenLength} characters, got ${token.length}: use a random one (e.g. \`openssl rand -base64 24\`), or leave it unset to have one generated`,
    });
  }
  const users = Object.keys(config.channels.web?.users ?? {});
  if (users.includes("operator")) {
    problems.push({
      path: ["channels", "web", "users", "operator"],
      message: "`operator` is the name of the shared token's holders: pick another",
    });
  }
  if (users.length > 0) return problems;
  config.worlds.forEach((world, worldIndex) => {
    for (const section of ["approvers", "members"] as const) {
      const names = (world[section].web ?? []).filter((name) => name !== "*");
      if (names.length === 0) continue;
      problems.push({
        path: ["worlds", worldIndex, section, "web"],
        message: `names ${names.join(", ")} mean nothing without channels.web.users: with only the shared WEB_CONSOLE_TOKEN anyone holding it can type any name. Give each person a token under channels.web.users (e.g. channels: { web: { users: { ana: \${ANA_WEB_TOKEN} } } }), or use "*"`,
      });
    }
  });
  return problems;
}

function checkChannels(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const worldNames = config.worlds.map((world) => world.name);
  for (const [platform, channel] of Object.entries(config.channels)) {
    if (!channel || !("chats" in channel)) continue;
    for (const [chat, world] of Object.entries(channel.chats)) {
      if (!worldNames.includes(world)) {
        problems.push({
          path: ["channels", platform, "chats", chat],
          message: `unknown world ${JSON.stringify(world)} (worlds: ${worldNames.join(", ") || "none"})`,
        });
      }
    }
  }
  const slack = config.channels.slack;
  if (slack?.botToken && !slack.signingSecret && !slack.appToken) {
    problems.push({
      path: ["channels", "slack"],
      message:
        "set signingSecret (HTTP events, or SLACK_SIGNING_SECRET) or appToken (Socket Mode, or SLACK_APP_TOKEN) next to botToken",
    });
  }
  return problems;
}

/** The limits as the world reads them (the schema's optional keys may hold `undefined`). */
function worldSettingsLimits(limits: Config["worlds"][number]["limits"]): WorldLimitSettings {
  const { costPerDay, costPerMonth, perPerson, perChat, perAgent } = limits;
  return {
    messagesPerMinute: limits.messagesPerMinute,
    ...(costPerDay === undefined ? {} : { costPerDay }),
    ...(costPerMonth === undefined ? {} : { costPerMonth }),
    ...(perPerson === undefined ? {} : { perPerson }),
    ...(perChat === undefined ? {} : { perChat }),
    ...(perAgent === undefined ? {} : { perAgent }),
  };
}
