/** What the adapter knows for reading Slack markup as world names. */
export interface SlackNames {
  /** The app's bot user: a mention of it addresses the service (then the agent named next). */
  botUserId: string;
  /** Agent names by lower-case name. */
  agentNames: ReadonlyMap<string, string>;
  /** Display names of people (and other bots) by user id, as far as known. */
  userNames: ReadonlyMap<string, string>;
  /** User group handles by id (`<!subteam^S…>`), as far as known. */
  groupHandles?: ReadonlyMap<string, string>;
}

function unescapeMrkdwn(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

/**
 * Slack markup as plain text with `@name`s: `<@U…>` of a person becomes `@<their name>`; of the
 * app's bot user it is removed, and an agent name right after it becomes `@agent` (so
 * `@Roundtable bob, check` addresses bob, and `@Roundtable check` the default agent). User
 * groups, `@here`/`@channel`, channels and links become their visible text; `&amp;` and co are
 * unescaped.
 */
export function resolveSlackText(raw: string, names: SlackNames): { text: string; mentions: string[] } {
  const mentions: string[] = [];
  const agentAfterBot = new RegExp(`^<@${names.botUserId}(?:\\|[^>]*)?>[\\s,:]*@?([A-Za-z][\\w-]*)`);
  let text = "";
  let rest = raw;
  while (rest.length > 0) {
    const start = rest.indexOf("<");
    if (start === -1) {
      text += rest;
      break;
    }
    text += rest.slice(0, start);
    rest = rest.slice(start);
    const end = rest.indexOf(">");
    if (end === -1) {
      text += rest;
      break;
    }
    const token = rest.slice(1, end);
    if (token.startsWith("@")) {
      const [id = "", label] = token.slice(1).split("|");
      if (id === names.botUserId) {
        const agent = agentAfterBot.exec(rest);
        const name = agent ? names.agentNames.get((agent[1] as string).toLowerCase()) : undefined;
        if (agent && name) {
          text += `@${name}`;
          mentions.push(name);
          rest = rest.slice(agent[0].length);
        } else {
          rest = rest.slice(end + 1).replace(/^[\s,:]+/, text.trim() === "" ? "" : " ");
        }
        continue;
      }
      const name = names.userNames.get(id) ?? (label !== undefined && label !== "" ? label : id);
      text += `@${name}`;
      mentions.push(name);
    } else if (token.startsWith("!subteam^")) {
      const [id = "", label] = token.slice("!subteam^".length).split("|");
      const handle = names.groupHandles?.get(id) ?? label?.replace(/^@/, "") ?? id;
      text += `@${handle}`;
    } else if (token.startsWith("!")) {
      const [keyword = "", label] = token.slice(1).split("|");
      text += label ?? `@${keyword.split("^")[0]}`;
    } else if (token.startsWith("#")) {
      const [id = "", label] = token.slice(1).split("|");
      text += `#${label ?? id}`;
    } else {
      const [url = "", label] = token.split("|");
      text += label ?? url;
    }
    rest = rest.slice(end + 1);
  }
  return { text: unescapeMrkdwn(text).trim(), mentions };
}
