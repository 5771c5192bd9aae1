import type { WorldSettings } from "../world-settings.js";
import type { ChatRef } from "../chat-ref.js";
import type { Sender } from "../inbound.js";
import type { ChatCommandName } from "./chat-commands.js";

/** One command to run, from a typed message or a platform structure (button, slash command). */
export interface ChatCommandRequest {
  world: WorldSettings;
  chat: ChatRef;
  sender: Sender;
  name: Exclude<ChatCommandName, "reset">;
  args: string[];
  /** Also the chats of the channel's threads (a command that cannot name a thread). */
  wholeChannel?: boolean;
}

/**
 * What a command answers. `done` is shown to the chat (a typed command) or to the sender (a
 * button or slash command); `refused` only ever to the sender, privately where the platform can.
 */
export type ChatCommandAnswer =
  | {
      status: "done";
      text: string /** Shown only to the sender where the platform can (`/usage`). */;
      private?: boolean;
    }
  | { status: "refused"; text: string };
