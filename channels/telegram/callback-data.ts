import { RoundtableError } from "../../src/errors/roundtable-error.js";
import type { ApprovalChoice } from "../../src/world/inbound.js";

/** Telegram's limit for `callback_data`, in bytes. */
export const callbackDataLimit = 64;

const choiceCodes: Record<ApprovalChoice, string> = { once: "o", session: "s", deny: "d" };
const choicesByCode = new Map<string, ApprovalChoice>(
  Object.entries(choiceCodes).map(([choice, code]) => [code, choice as ApprovalChoice]),
);

/** `ap:<approval id>:<o|s|d>`: the opaque id and the choice, nothing else. */
export function encodeApprovalCallback(approvalId: string, choice: ApprovalChoice): string {
  const data = `ap:${approvalId}:${choiceCodes[choice]}`;
  if (Buffer.byteLength(data, "utf8") > callbackDataLimit || approvalId.includes(":") || approvalId === "") {
    throw new RoundtableError("internal", `approval id does not fit Telegram callback data: ${approvalId}`);
  }
  return data;
}

/** The approval id and choice in `data`, or undefined when it is not ours or malformed. */
export function decodeApprovalCallback(data: string): { approvalId: string; choice: ApprovalChoice } | undefined {
  const match = /^ap:([^:\s]{1,58}):([a-z])$/.exec(data);
  if (!match) return undefined;
  const choice = choicesByCode.get(match[2] ?? "");
  if (!choice) return undefined;
  return { approvalId: match[1] ?? "", choice };
}
