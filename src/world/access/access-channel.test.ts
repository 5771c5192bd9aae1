import { describe, expect, it } from "vitest";
import type { AccessChannel } from "./access-channel.js";
import { mayDecide } from "../turn/index.js";
import { decidersText } from "../commands/approvals-text.js";
import { mayTalk } from "./membership.js";

const stranger = { id: "u9", displayName: "stranger", isBot: false };
const noRoles = async () => [];
const world = { approvers: { web: ["u1"] }, members: { web: ["u1"] } };

function channel(identifiesClickers: boolean): AccessChannel {
  return { platform: "web", capabilities: { identifiesClickers } };
}

describe("access checks read the channel's capability, not its platform name", () => {
  it("applies the platform's lists where the channel tells people apart", async () => {
    expect(await mayDecide(world, channel(true), stranger, "u2", noRoles)).toBe(false);
    expect(await mayTalk(world, channel(true), stranger, noRoles)).toBe(false);
    expect(decidersText(["u1"], channel(true), "ana")).toBe("u1");
  });

  it("lets the one local user of a channel that does not tell people apart do all", async () => {
    expect(await mayDecide(world, channel(false), stranger, "u2", noRoles)).toBe(true);
    expect(await mayTalk(world, channel(false), stranger, noRoles)).toBe(true);
    expect(decidersText(["u1"], channel(false), "ana")).toBe("you");
  });
});
