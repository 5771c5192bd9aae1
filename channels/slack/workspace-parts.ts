import type { Logger } from "../../src/log/logger.js";
import type { ChannelClock, InboundSink } from "../../src/world/channel-adapter.js";
import type { SlackOutbound } from "./api.js";
import { ApproverGroups } from "./approver-groups.js";
import { type LastPeople, SlackInboundHandler } from "./inbound-handler.js";
import type { ReplyIn } from "./parse.js";
import { ThreadRoots } from "./thread-roots.js";
import { UserNames } from "./user-names.js";
import type { SlackWorkspaces } from "./workspaces.js";

/** What answers one workspace's events: its people's names, its user groups, its inbound handler. */
export interface WorkspaceParts {
  names: UserNames;
  groups: ApproverGroups;
  handler: SlackInboundHandler;
}

export interface WorkspacePartsSetup {
  workspaces: SlackWorkspaces;
  sink: InboundSink;
  outbound: SlackOutbound;
  people: LastPeople;
  clock: ChannelClock;
  logger: Logger;
  approverGroups: readonly string[];
  replyIn: ReplyIn;
  threadDirectMessages: boolean;
  /** Where shared files are downloaded from (`files.slack.com`, or an emulator's host). */
  filesHost: string;
  agentNames: Map<string, string>;
}

/**
 * Each workspace's parts, made the first time it is heard from (with one bot token there is one
 * set for every chat). Ids, names and groups of one workspace never answer another's.
 */
export class SlackWorkspaceParts {
  private readonly parts = new Map<string, Promise<WorkspaceParts>>();

  constructor(private readonly setup: WorkspacePartsSetup) {}

  of(teamId: string | undefined): Promise<WorkspaceParts> {
    const key = this.setup.workspaces.kind === "single" ? "" : (teamId ?? "");
    let parts = this.parts.get(key);
    if (parts === undefined) {
      parts = this.make(teamId);
      this.parts.set(key, parts);
      // A workspace not installed (or a failed auth.test) is asked again next time.
      parts.catch(() => this.parts.delete(key));
    }
    return parts;
  }

  forget(teamId: string): void {
    this.parts.delete(teamId);
  }

  private async make(teamId: string | undefined): Promise<WorkspaceParts> {
    const { setup } = this;
    const auth = await setup.workspaces.auth(teamId);
    // The look-ups an event waits for go through a queue of their own, not behind the posts.
    const client = await setup.workspaces.lookupClientOf(teamId);
    const now = () => setup.clock.now();
    const names = new UserNames(client, setup.logger, now);
    const groups = new ApproverGroups(client, setup.approverGroups, setup.logger, now);
    const context = {
      botUserId: auth.botUserId,
      botId: auth.botId,
      teamId: auth.teamId,
      replyIn: setup.replyIn,
      threadDirectMessages: setup.threadDirectMessages,
      files: { host: setup.filesHost, botToken: auth.botToken },
      agentNames: setup.agentNames,
    };
    const handler = new SlackInboundHandler({
      sink: setup.sink,
      outbound: setup.outbound,
      names,
      groups,
      clock: setup.clock,
      logger: setup.logger,
      threadRoots: new ThreadRoots(client, names, () => context, setup.logger),
      context,
      people: setup.people,
    });
    return { names, groups, handler };
  }
}
