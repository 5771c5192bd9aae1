import type { ChannelClock, ChatRef } from "../../src/world/channel-adapter.js";
import type { Logger } from "../../src/log/logger.js";
import type { SlackOAuthOptions } from "./installed-app.js";
import type { ReplyIn } from "./parse.js";

/** How an answer appears while the model writes. */
export type SlackStreamMode = "edit" | "native";

/** An agent's look in Slack: posted with `username`/`icon_url` when the app may. */
export interface SlackAgentIdentity {
  name: string;
  displayName?: string;
  avatarUrl?: string;
  /** What the agent is for (its suggested prompt in the Messages tab). */
  description?: string;
}

/** Everything the Slack adapter needs; the service builds it from config and environment. */
export interface SlackAdapterOptions {
  /** `SLACK_BOT_TOKEN` (`xoxb-…`): one workspace. Not needed with `oauth`. */
  botToken?: string;
  /** "Add to Slack": each workspace installs the app and is answered with its own token. */
  oauth?: SlackOAuthOptions;
  /** `SLACK_SIGNING_SECRET`: needed for HTTP events at `/slack/events`. */
  signingSecret?: string;
  /** `SLACK_APP_TOKEN` (`xapp-…`): set → Socket Mode, unset → HTTP events. */
  appToken?: string;
  /** `SLACK_API_URL`: another Web API base, ending in `/api/`. */
  apiUrl?: string;
  /**
   * The `fetch` Web API calls go through (default: the global `fetch`). The service gives the
   * one over `node:http` its model streams use (src/http/node-http-fetch.ts): a streamed answer's
   * edits cost less through it than through undici, and an idle process does not load undici.
   */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Answers in the thread of the message they answer (default) or in the channel. */
  replyIn?: ReplyIn;
  /** `edit` (post, then `chat.update`; default) or Slack's `native` streams. */
  stream?: SlackStreamMode;
  /** Every agent, with its display name and icon. */
  agents?: SlackAgentIdentity[];
  /** Slack's Agent messaging experience: a top-level DM starts its own thread; the Messages tab gets suggested prompts. */
  agentView?: boolean;
  /** User group handles approvers name as `role:<handle>`. */
  approverGroups?: string[];
  /** Whether posts in a chat may unfurl links (its world's `linkPreviews`; default never). */
  linkPreviews?: (chat: ChatRef) => boolean;
  logger: Logger;
  /** Minimum time between two changes of one streamed message (default 1000 ms). */
  updateIntervalMs?: number;
  /** Retries of one Web API call after a 429, or a 5xx or cut connection where that is safe (default 5). */
  retries?: number;
  clock?: ChannelClock;
}
