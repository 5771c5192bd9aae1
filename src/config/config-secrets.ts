import { argumentSecrets, environmentSecrets } from "../log/redact-secrets.js";
import type { Config } from "./schema.js";

/**
 * Every secret value the config holds (provider keys, platform and agents' bot tokens, signing
 * and webhook secrets, the web console's token, MCP server headers, environment and secret
 * options in their `args`): the log, `roundtable approvals` and the operator view redact them
 * wherever they appear, also inside error messages and URLs.
 */
export function configSecrets(config: Config): string[] {
  const values: (string | undefined)[] = [];
  for (const provider of Object.values(config.providers)) values.push(provider.apiKey);
  for (const agent of config.agents) values.push(agent.telegram?.token, agent.discord?.token);
  const { telegram, slack, discord } = config.channels;
  values.push(telegram?.token, telegram?.webhookSecret, slack?.botToken, slack?.signingSecret, slack?.appToken);
  values.push(slack?.oauth?.clientSecret, slack?.oauth?.stateSecret, slack?.oauth?.secretKey);
  values.push(discord?.token, config.web.token, ...Object.values(config.channels.web?.users ?? {}));
  values.push(...config.triggers.map((trigger) => trigger.secret));
  for (const server of Object.values(config.tools.mcpServers)) {
    if ("headers" in server) values.push(...Object.values(server.headers));
    if ("env" in server) values.push(...environmentSecrets(server.env));
    if ("args" in server) values.push(...argumentSecrets(server.args));
  }
  return values.filter((value): value is string => value !== undefined && value.length >= 8);
}
