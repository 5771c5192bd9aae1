import { describe, expect, it } from "vitest";
import { configSchema } from "../config/schema.js";
import type { ApprovalRecord } from "../world/records.js";
import { describeDeciders } from "./operator-snapshot.js";

const config = configSchema.parse({
  agents: [{ name: "alice", provider: "openai", model: "gpt-4.1" }],
  worlds: [
    { name: "open", agents: ["alice"] },
    { name: "ops", agents: ["alice"], approvers: { web: ["ana", "requester"], slack: ["role:Ops"], telegram: ["*"] } },
  ],
});

function approval(world: string, chatKey: string): ApprovalRecord {
  const at = new Date("2026-11-24T07:00:00Z");
  return {
    id: "a1",
    shortId: "7f3a",
    chatKey,
    world,
    agent: "alice",
    turnId: "t1",
    toolCallId: "c1",
    state: "pending",
    requestedFor: "bob",
    reason: "",
    expiresAt: at,
    createdAt: at,
  };
}

describe("describeDeciders", () => {
  it("says who may decide, as the approver rules read", () => {
    expect(describeDeciders(config, approval("open", "web:open:browser:"))).toBe("requester (bob)");
    expect(describeDeciders(config, approval("ops", "web:ops:browser:"))).toBe("ana, requester (bob)");
    expect(describeDeciders(config, approval("ops", "slack:T1:C1:"))).toBe("role:Ops");
    expect(describeDeciders(config, approval("ops", "telegram::-100:"))).toBe("anyone");
    expect(describeDeciders(config, approval("ops", "console:ops:ana:"))).toBe("the local user");
  });
});
