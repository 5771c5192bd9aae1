import { describe, expect, it } from "vitest";
import { approvalRouteWarnings } from "./check-approval-routes.js";
import { configSchema } from "./schema.js";

function configWith(world: Record<string, unknown>, channels: Record<string, unknown>) {
  return configSchema.parse({ worlds: [{ name: "ops", agents: ["alice"], ...world }], channels });
}

const texts = (config: ReturnType<typeof configWith>) => approvalRouteWarnings(config).map((warning) => warning.text);

describe("check's warnings for approvals.route and approvals.channel", () => {
  it("says nothing for the default route, nor for a DM route with approvers listed by id on Slack", () => {
    expect(texts(configWith({}, { telegram: { token: "t" } }))).toEqual([]);
    const slack = configWith(
      { approvers: { slack: ["U1"] }, approvals: { route: "dm" } },
      { slack: { botToken: "b", signingSecret: "s" } },
    );
    expect(texts(slack)).toEqual([]);
  });

  it("warns for a Telegram DM route with no approver ids (every card falls back), and says Telegram needs Start", () => {
    const none = configWith(
      { approvers: { telegram: ["requester", "admins"] }, approvals: { route: "dm" } },
      { telegram: { token: "t" } },
    );
    expect(texts(none)).toEqual([expect.stringMatching(/no approver is listed by id on a configured platform/)]);
    const listed = configWith(
      { approvers: { telegram: ["222"] }, approvals: { route: "both" } },
      { telegram: { token: "t" } },
    );
    expect(texts(listed)).toEqual([expect.stringMatching(/only to people who started it/)]);
  });

  it("warns for approvers listed on a platform that is not configured", () => {
    const config = configWith(
      { approvers: { telegram: ["222"], discord: ["9"] }, approvals: { route: "dm" } },
      { telegram: { token: "t" } },
    );
    expect(texts(config)).toContain(
      "approvals.route is dm: approvers.discord lists people, but channels.discord is not configured, so no DM reaches them",
    );
  });

  it("warns for an approvals channel on a platform not configured, one not bound to the world, and one where only requester may decide", () => {
    const unconfigured = configWith(
      { approvals: { channel: { platform: "slack", id: "C1" } } },
      { telegram: { token: "t" } },
    );
    expect(texts(unconfigured)).toEqual([
      'approvals.channel slack "C1": channels.slack is not configured, so no card is posted there',
    ]);
    const unbound = configWith(
      { approvers: { slack: ["U1"] }, approvals: { channel: { platform: "slack", id: "C1" } } },
      { slack: { botToken: "b", signingSecret: "s", chats: { C2: "ops" } } },
    );
    expect(texts(unbound)).toEqual([
      'approvals.channel slack "C1" is bound to no world; bind it to "ops" in channels.slack.chats',
    ]);
    const requesterOnly = configWith(
      { approvals: { channel: { platform: "slack", id: "C1" } } },
      { slack: { botToken: "b", signingSecret: "s", chats: { C1: "ops" } } },
    );
    expect(texts(requesterOnly)).toEqual([expect.stringMatching(/names nobody but requester/)]);
  });
});
