import { randomBytes } from "node:crypto";
import type { WorldSlack } from "./world-slack.js";

/*
 * The set-up the "Add to Slack" tests share (world-add-to-slack, world-add-to-slack-faults): the
 * app's OAuth settings, two workspaces bound to one world, and the two legs of the install flow.
 */

export const oauth = {
  clientId: "1111.2222",
  clientSecret: "client-secret-for-tests",
  stateSecret: "state-secret-for-tests-0123456789",
  secretKey: randomBytes(32).toString("base64"),
};
export const alpha = { teamId: "T0ALPHA", channel: "C0ALPHA" };
export const beta = { teamId: "T0BETA", channel: "C0BETA" };

/** `channels.slack.chats`: both workspaces' channels in the world `main`. */
export const bothWorkspaces = {
  [`${alpha.teamId}/${alpha.channel}`]: "main",
  [`${beta.teamId}/${beta.channel}`]: "main",
};

/** `/slack/install` as a browser opens it: the answer's status, the state cookie and where it redirects. */
export async function openInstall(world: WorldSlack): Promise<{ status: number; cookie: string; location: string }> {
  const response = await fetch(`${world.origin}/slack/install`, { redirect: "manual" });
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  return { status: response.status, cookie, location: response.headers.get("location") ?? "" };
}

/** Back from the consent page to `/slack/oauth_redirect` with `query` (code and state), and the cookie if any. */
export async function returnFromConsent(world: WorldSlack, query: Record<string, string>, cookie?: string) {
  const response = await fetch(`${world.origin}/slack/oauth_redirect?${new URLSearchParams(query)}`, {
    headers: cookie ? { cookie } : {},
  });
  return { status: response.status, text: await response.text() };
}
