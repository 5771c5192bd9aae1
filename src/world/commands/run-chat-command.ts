import { assertNever } from "../../errors/assert-never.js";
import type { Outbox } from "../outbox.js";
import { approversFor, type TurnInterrupts } from "../turn/index.js";
import type { WorldContext } from "../world-context.js";
import { agentsText } from "./agents-text.js";
import { approvalsText } from "./approvals-text.js";
import type { ChatCommandAnswer, ChatCommandRequest } from "./chat-command-request.js";
import { helpText } from "./help-text.js";
import { stopCommand } from "./stop-command.js";
import { rulesCommand } from "./rules-command.js";
import { chatKey } from "../chat-ref.js";
import { usageReport, usageText } from "../limits/usage-report.js";

export type { ChatCommandAnswer, ChatCommandRequest } from "./chat-command-request.js";

/** Runs one chat command. Never queued behind the chat's running steps: it runs at ingress. */
export async function runChatCommand(
  context: WorldContext,
  outbox: Outbox,
  interrupts: TurnInterrupts,
  request: ChatCommandRequest,
): Promise<ChatCommandAnswer> {
  const { world, chat } = request;
  switch (request.name) {
    case "help":
      return { status: "done", text: helpText() };
    case "agents":
      return {
        status: "done",
        text: agentsText({
          agents: world.agents.map((name) => ({ name, description: context.agents.get(name)?.description })),
          defaultAgent: world.defaultAgent,
          respond: world.respond,
        }),
      };
    case "approvals":
      return {
        status: "done",
        text: await approvalsText(context, chat, approversFor(world, chat.platform), request.wholeChannel),
      };
    case "rules":
      return rulesCommand(context, request);
    case "stop":
      return stopCommand(context, outbox, interrupts, request);
    case "usage": {
      const lines = await usageReport(
        context.store,
        world,
        { chatKey: chatKey(chat), person: request.sender.id },
        context.clock(),
      );
      return { status: "done", text: usageText(lines, request.sender.displayName), private: true };
    }
    default:
      return assertNever(request.name, "chat command");
  }
}
