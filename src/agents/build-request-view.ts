import type { AgentConfig } from "../config/schema.js";
import { autonomousLine } from "../world/autonomous/autonomous-run-store.js";
import type { ModelRequest, ToolDefinition, ViewImage, ViewMessage } from "../providers/model-provider.js";
import type { MessageRecord, ToolCallRecord, ToolResultRecord } from "../world/records.js";
import { parseChatKey } from "../world/chat-ref.js";
import { isToolFilesMessage, toolFilesMessageId } from "../world/files/tool-files.js";
import type { Store } from "../world/store.js";
import type { WorldSettings } from "../world/world-settings.js";
import { type FilesInView, filesInView, toolImagesInView } from "./view/file-view.js";
import { orderConversation } from "./view/order-conversation.js";
import { worldBriefing } from "./view/world-briefing.js";

/** The room a view is built in: its world and the configured agents (for the briefing). */
export interface ViewRoom {
  world: Pick<WorldSettings, "name" | "agents">;
  agents: ReadonlyMap<string, Pick<AgentConfig, "description">>;
}

/** How many stored messages a view starts from, before budget truncation. */
const viewWindow = 400;
/** Room for messages written after the trigger (other turns' answers, this turn's steps). */
const maxStepsInView = 50;

/**
 * The request view of one agent in one chat, built from stored history (never changed): the
 * chat's messages from people and other agents as `user` text led by the sender's name, the
 * agent's own messages as `assistant` with its own tool calls, each followed by its result.
 * Other agents' tool calls and the world's notices are not shown. The order is the
 * conversation's ({@link orderConversation}), not the storage order. The system prompt is the
 * agent's own, followed by the world briefing ({@link worldBriefing}) when the room is given.
 */
export async function buildRequestView(
  store: Store,
  chatKey: string,
  agent: AgentConfig,
  tools: ToolDefinition[],
  turn: { id: string; triggerMessageId: string; chatKey: string },
  room: ViewRoom | undefined,
  /** The turn's trigger when the caller has read it already (undefined: it is gone). */
  loaded?: { trigger: MessageRecord | undefined },
): Promise<ModelRequest> {
  // The chat as it stood for this turn (answers right after their questions, later messages
  // from people left out, this turn's own steps last). Only the newest part of a long chat is read.
  const trigger = loaded ? loaded.trigger : await store.getMessage(turn.triggerMessageId);
  let recent = await store.listMessages(chatKey, { latest: viewWindow + 2 * maxStepsInView });
  const oldest = recent[0];
  // A turn parked long in a busy chat: its trigger is older than the window; read it all.
  if (trigger && oldest && trigger.seq < oldest.seq) recent = await store.listMessages(chatKey);
  const messages = orderConversation(recent, turn).slice(-viewWindow);
  // Only the calls of the agent's own messages in the view: a cost that stays flat with history.
  const own = messages.filter((message) => message.author.kind === "agent" && message.author.name === agent.name);
  const oldestOwn = own.reduce<Date | undefined>(
    (oldest, message) => (oldest === undefined || message.createdAt < oldest ? message.createdAt : oldest),
    undefined,
  );
  const calls = await store.listToolCalls({
    chatKey,
    agent: agent.name,
    messageIds: own.map((message) => message.id),
    ...(oldestOwn === undefined ? {} : { messagesFrom: oldestOwn }),
  });
  const results = new Map(
    (await store.listToolResults(calls.map((call) => call.id))).map((result) => [result.toolCallId, result]),
  );
  const callsByMessage = new Map<string, ToolCallRecord[]>();
  for (const call of calls) {
    const list = callsByMessage.get(call.messageId) ?? [];
    list.push(call);
    callsByMessage.set(call.messageId, list);
  }
  // Files are read only for the messages that have them (a chat without files reads none):
  // others' messages for their lines and input, the agent's own tool files for their images
  // (given back with the call's result), only when it takes image input.
  const vision = agent.vision !== false;
  const filesByMessage = new Map<string, FilesInView>();
  const toolImages = new Map<string, ViewImage[]>();
  for (const message of messages) {
    if (message.fileCount === undefined) continue;
    if (!isOwn(message, agent.name)) {
      filesByMessage.set(message.id, filesInView(message.id, await store.messageFiles(message.id), vision));
    } else if (vision && isToolFilesMessage(message)) {
      const images = toolImagesInView(await store.messageFiles(message.id), vision);
      if (images.length > 0) toolImages.set(message.id, images);
    }
  }
  const view: ViewMessage[] = [];
  for (const message of messages)
    view.push(...toView(message, agent.name, callsByMessage, results, filesByMessage.get(message.id), toolImages));
  return {
    model: agent.model,
    system: room === undefined ? agent.systemPrompt : withBriefing(agent, room, turn.chatKey, messages),
    messages: view,
    tools,
    ...(agent.temperature === undefined ? {} : { temperature: agent.temperature }),
    ...(agent.maxOutputTokens === undefined ? {} : { maxOutputTokens: agent.maxOutputTokens }),
  };
}

/** The agent's own prompt, then the briefing on the room (people: who posted in the window). */
function withBriefing(agent: AgentConfig, room: ViewRoom, chatKey: string, messages: MessageRecord[]): string {
  const people = [
    ...new Set(
      messages
        .filter((message) => message.author.kind === "human" || message.author.kind === "bot")
        .map((message) => message.author.name),
    ),
  ];
  const briefing = worldBriefing({
    self: agent.name,
    world: room.world.name,
    agents: room.world.agents.map((name) => {
      const description = room.agents.get(name)?.description;
      return description === undefined ? { name } : { name, description };
    }),
    people,
    platform: parseChatKey(chatKey).platform,
  });
  return agent.systemPrompt.trim() === "" ? briefing : `${agent.systemPrompt}\n\n${briefing}`;
}

function isOwn(message: MessageRecord, self: string): boolean {
  return message.author.kind === "agent" && message.author.name === self;
}

function toView(
  message: MessageRecord,
  self: string,
  callsByMessage: Map<string, ToolCallRecord[]>,
  results: Map<string, ToolResultRecord>,
  files: FilesInView | undefined,
  /** Images of the agent's tool calls, by their files message id (`<call id>:tool-files`). */
  toolImages: ReadonlyMap<string, ViewImage[]>,
): ViewMessage[] {
  if (message.author.kind === "system") {
    // A schedule's or trigger's run addresses the agent with its prompt; other notices are the chat's.
    const line = autonomousLine(message.author);
    return line === undefined ? [] : [{ role: "user", text: `${line}: ${message.text}` }];
  }
  // The agent's own tool files: it read them as its tool's result already.
  if (isOwn(message, self) && isToolFilesMessage(message)) return [];
  if (!isOwn(message, self)) {
    const text = [message.text, ...(files?.lines ?? [])].filter((part) => part.trim() !== "").join("\n");
    if (text === "") return [];
    const images = files?.images ?? [];
    const documents = files?.documents ?? [];
    return [
      {
        role: "user",
        text: `${message.author.name}: ${text}`,
        ...(images.length === 0 ? {} : { images }),
        ...(documents.length === 0 ? {} : { documents }),
      },
    ];
  }
  const origin =
    message.provider !== undefined && message.model !== undefined
      ? { origin: { provider: message.provider, model: message.model } }
      : {};
  const calls = (callsByMessage.get(message.id) ?? []).filter((call) => results.has(call.id));
  const out: ViewMessage[] = [
    {
      role: "assistant",
      text: message.text,
      toolCalls: calls.map((call) => ({
        id: call.providerCallId,
        name: call.name,
        argumentsJson: call.argumentsJson,
        ...(call.providerFields === undefined ? {} : { providerFields: call.providerFields }),
      })),
      ...origin,
      ...(message.providerFields === undefined ? {} : { providerFields: message.providerFields }),
    },
  ];
  for (const call of calls) {
    const result = results.get(call.id);
    if (!result) continue;
    const images = toolImages.get(toolFilesMessageId(call.id));
    out.push({
      role: "tool",
      toolCallId: call.providerCallId,
      toolName: call.name,
      text: result.content,
      ...origin,
      ...(images === undefined ? {} : { images }),
    });
  }
  return out;
}
