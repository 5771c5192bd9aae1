import { autonomousLine } from "../world/autonomous/autonomous-run-store.js";
import type { AgentIdentity } from "../../channels/web/render.js";
import { toWebAuthor, webCardArguments } from "../../channels/web/render.js";
import { webFileLink } from "../../channels/web/file-route.js";
import type { WebFileLink, WebHistorySource, WebItem } from "../../channels/web/web-items.js";
import type { Store } from "../world/store.js";

/** How many stored messages a chat page opens with. */
const historyLength = 200;

/**
 * The web chat page's history from the store: the chat's newest messages and the approval
 * cards asked since the oldest of them, in the order they happened, cards with their outcome.
 */
export function storeHistory(store: Store, agents: ReadonlyMap<string, AgentIdentity>): WebHistorySource {
  return {
    async history(chatKey) {
      const messages = await store.listMessages(chatKey, { latest: historyLength });
      const since = messages[0]?.createdAt.getTime() ?? 0;
      const approvals = (await store.listApprovals({ chatKey })).filter(
        (approval) => approval.createdAt.getTime() >= since,
      );
      const timed: { at: number; order: number; item: WebItem }[] = [];
      // A message's files (read only for one that has some), linked as the delivery links them.
      const links = new Map<string, WebFileLink[]>();
      for (const message of messages) {
        if ((message.fileCount ?? 0) === 0) continue;
        const files = (await store.messageFiles(message.id)).filter((file) => file.bytes !== undefined);
        links.set(
          message.id,
          files.map((file) => webFileLink(message.id, file.name, file.mediaType)),
        );
      }
      messages.forEach((message, order) => {
        if (message.text.trim() === "") return;
        const files = links.get(message.id);
        timed.push({
          at: message.createdAt.getTime(),
          order,
          item: {
            kind: "message",
            id: message.id,
            author: toWebAuthor(message.author, agents),
            // A schedule's or trigger's run shows its line, as the delivery does.
            text: autonomousLine(message.author) ?? message.text,
            at: message.createdAt.toISOString(),
            ...(files === undefined || files.length === 0 ? {} : { files }),
          },
        });
      });
      for (const approval of approvals) {
        const call = await store.getToolCall(approval.toolCallId);
        // A skipped card says why (`Ana wrote to alice again`, `chat reset by Ana`): its last change's note.
        const note =
          approval.state === "skipped" ? (await store.listApprovalChanges(approval.id)).at(-1)?.note : undefined;
        timed.push({
          at: approval.createdAt.getTime(),
          order: Number.MAX_SAFE_INTEGER,
          item: {
            kind: "card",
            id: approval.id,
            at: approval.createdAt.toISOString(),
            card: {
              approvalId: approval.id,
              shortId: approval.shortId,
              agent: approval.agent,
              ...agentDisplayName(agents, approval.agent),
              tool: call?.name ?? "unknown tool",
              // What the call runs with (the parsed arguments), not the model's own text.
              ...webCardArguments(call?.argumentsJson ?? "{}"),
              reason: approval.reason,
              requestedFor: approval.requestedFor,
              expiresAt: approval.expiresAt.toISOString(),
              state: approval.state,
              ...(approval.choice === undefined ? {} : { choice: approval.choice }),
              ...(approval.decidedByName === undefined ? {} : { decidedBy: approval.decidedByName }),
              ...(note === undefined ? {} : { note }),
            },
          },
        });
      }
      timed.sort((a, b) => a.at - b.at || a.order - b.order);
      return timed.map((entry) => entry.item);
    },
  };
}

function agentDisplayName(agents: ReadonlyMap<string, AgentIdentity>, agent: string): { agentDisplayName?: string } {
  const displayName = agents.get(agent)?.displayName;
  return displayName === undefined || displayName === agent ? {} : { agentDisplayName: displayName };
}
