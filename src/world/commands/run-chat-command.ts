import type { WorldSettings } from "../world-settings.js";
import { assertNever } from "../../errors/assert-never.js";
import type { ChatRef } from "../chat-ref.js";
import type { Sender } from "../inbound.js";
import type { Outbox } from "../outbox.js";
import type { WorldContext } from "../world-context.js";
import { agentsText } from "./agents-text.js";
import { approversFor } from "../approval-rights.js";
import { approvalsText } from "./approvals-text.js";
import type { ChatCommandName } from "./chat-commands.js";
import { helpText } from "./help-text.js";

/** One command to run, from a typed message or a platform structure (button, slash command). */
export interface ChatCommandRequest {
  world: WorldSettings;
  chat: ChatRef;
  sender: Sender;
  name: Exclude<ChatCommandName, "reset">;
  args: string[];
}

/**
 * What a command answers. `done` is shown to the chat (a typed command) or to the sender (a
 * button or slash command); `refused` only ever to the sender, privately where the platform can.
 */
export type ChatCommandAnswer = { status: "done"; text: string } | { status: "refused"; text: string };

/** Runs one chat command. Never queued behind the chat's running steps: it runs at ingress. */
export async function runChatCommand(
  context: WorldContext,
  _outbox: Outbox,
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
      return { status: "done", text: await approvalsText(context, chat, approversFor(world, chat.platform)) };
    case "stop":
      return { status: "refused", text: "/stop is not available yet." };
    default:
      return assertNever(request.name, "chat command");
  }
}
