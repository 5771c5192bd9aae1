import type { Logger } from "../../src/log/logger.js";
import type { Author, ChatRef } from "../../src/world/channel-adapter.js";
import type { PostIdentity } from "./api.js";
import type { SlackAgentIdentity } from "./options.js";
import { namePrefix } from "./render.js";
import type { SlackWorkspaces } from "./workspaces.js";

/**
 * Under whose name an author posts in a chat: the agent's own name and avatar when the app may
 * there (`chat:write.customize` in that workspace), else the app's name with a bold name prefix.
 */
export class PostIdentities {
  private readonly agents: Map<string, SlackAgentIdentity>;

  constructor(
    private readonly workspaces: SlackWorkspaces,
    agents: readonly SlackAgentIdentity[],
    private readonly logger: Logger,
  ) {
    this.agents = new Map(agents.map((agent) => [agent.name, agent]));
  }

  displayNameOf(author: Author): string {
    return author.displayName ?? this.agents.get(author.name)?.displayName ?? author.name;
  }

  async of(chat: ChatRef, author: Author): Promise<{ identity: PostIdentity; prefix: string }> {
    if (author.kind === "system") return { identity: {}, prefix: "" };
    // A post may come before the start: stored work runs before the channels start.
    const app = await this.workspaces.auth(chat.workspace).catch((error: unknown) => {
      this.logger.warn({ err: error }, "slack: could not tell what the app may; posting under the app's name");
      return undefined;
    });
    const name = this.displayNameOf(author);
    const mayCustomize = app?.scopes?.has("chat:write.customize") ?? false;
    if (author.kind === "agent" && mayCustomize) {
      const avatarUrl = author.avatarUrl ?? this.agents.get(author.name)?.avatarUrl;
      return { identity: { username: name, ...(avatarUrl ? { iconUrl: avatarUrl } : {}) }, prefix: "" };
    }
    return { identity: {}, prefix: namePrefix(name) };
  }
}
