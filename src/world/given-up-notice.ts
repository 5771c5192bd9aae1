import type { StoredEvent } from "./events.js";

/**
 * The text of the notice shown where a delivery that was given up would have been (see
 * `Delivery.deliver`): what was not shown, the whole post or only some files of a message whose
 * text is in the chat (`unshownFiles`, by name). Undefined for a world notice, whose failure
 * is not announced by another one, or when everything of the message is in the chat.
 */
export function givenUpNotice(event: StoredEvent, unshownFiles?: readonly string[]): string | undefined {
  const what = givenUpWhat(event, unshownFiles);
  if (what === undefined) return undefined;
  const them = unshownFiles !== undefined && unshownFiles.length > 1 ? "them" : "it";
  return `${what} could not be shown here: the platform kept refusing ${them}. The details are in the service log.`;
}

function givenUpWhat(event: StoredEvent, unshownFiles: readonly string[] | undefined): string | undefined {
  switch (event.type) {
    case "message": {
      const author = event.message.author.name;
      if (unshownFiles === undefined) return `An answer from ${author}`;
      // Its text and every file are in the chat (what failed came after them): nothing to say.
      if (unshownFiles.length === 0) return undefined;
      const count = unshownFiles.length === 1 ? "1 file" : `${unshownFiles.length} files`;
      return `${count} of a message from ${author} (${unshownFiles.join(", ")})`;
    }
    case "approval-requested":
      return `An approval request from ${event.card.agent}`;
    case "approval-decided":
    case "approval-updated":
      return "An update of an approval card";
    default:
      return undefined;
  }
}
