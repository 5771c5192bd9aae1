import type { ViewMessage } from "../model-provider.js";
import {
  type Conversation,
  lastIndexOf,
  mentionsIn,
  type Said,
  splitSaid,
  withoutMentionOf,
} from "./read-conversation.js";

/** What the scripted model answers: text, and the tool calls it makes (name and arguments). */
export interface ScriptedReply {
  text: string;
  toolCalls: Array<{ name: string; args: Record<string, unknown> }>;
}

const shellTool = "shell_cmd";
/** How much of a tool's output the answer quotes. */
const maxQuotedOutput = 3_000;

/**
 * The scripted model's rules, read top to bottom (the first that fits answers):
 * 1. after tool results: answer from them (a command's stdout quoted, a refusal said);
 * 2. an answer from an agent it asked: report it to the person who asked, addressed to them
 *    (so the answer does not go back to the agent, and the exchange ends);
 * 3. asked to ask another agent (`ask @bob …`): address that agent with the question;
 * 4. with `shell_cmd`: "list the files" → `ls -la`, "run `cmd`" → that command, "show x.txt" → `cat`;
 * 5. a message from another agent: a short plausible answer (it goes back automatically);
 * 6. a greeting, or anything else: what it is and what it can do.
 */
export function composeReply(conversation: Conversation): ScriptedReply {
  const { messages } = conversation;
  const last = messages.at(-1);
  if (last === undefined) return say(introduction(conversation, ""));
  if (last.role === "tool") return say(fromToolResults(messages));
  if (last.role === "assistant") return say("Anything else?");
  const said = splitSaid(last.text);
  const body = withoutMentionOf(said.text, conversation.self);
  const fromAgent = conversation.agents.includes(said.sender) && said.sender !== conversation.self;
  if (fromAgent) {
    const report = reportBack(conversation, messages.length - 1, said, body);
    if (report !== undefined) return say(report);
  }
  const other = otherAgentMentioned(conversation, body);
  if (other !== undefined && !fromAgent) return say(askOther(other, said.sender, body));
  if (conversation.tools.includes(shellTool)) {
    const command = commandAskedFor(body);
    if (command !== undefined) return { text: command.preface, toolCalls: [{ name: shellTool, args: command.args }] };
  }
  if (fromAgent) return say(answerAgent(body));
  return say(introduction(conversation, said.sender));
}

function say(text: string): ScriptedReply {
  return { text, toolCalls: [] };
}

/** The outputs of the calls after the last assistant message, quoted. */
function fromToolResults(messages: readonly ViewMessage[]): string {
  const results = messages.slice(lastIndexOf(messages, "assistant", messages.length) + 1);
  const parts = results.flatMap((message) => (message.role === "tool" ? [describeResult(message.text)] : []));
  return parts.join("\n\n");
}

function describeResult(text: string): string {
  const exit = /^exit code: (\d+)/.exec(text);
  if (exit === null) return `That did not run: ${firstLine(text)}`;
  const stdout = section(text, "stdout");
  const stderr = section(text, "stderr");
  if (exit[1] !== "0") {
    return `The command failed (exit code ${exit[1]}):\n\n\`\`\`\n${quote(stderr || stdout || "(no output)")}\n\`\`\``;
  }
  if (stdout === "") return "Done: the command succeeded and printed nothing.";
  return `Here is what it printed:\n\n\`\`\`\n${quote(stdout)}\n\`\`\``;
}

/** The text of a `stdout:`/`stderr:` section of a shell result ("" when empty). */
function section(text: string, name: "stdout" | "stderr"): string {
  const match = new RegExp(`(?:^|\\n)${name}:(?: \\(empty\\)|\\n([\\s\\S]*?))(?=\\n(?:stdout|stderr):|$)`).exec(text);
  return match?.[1] ?? "";
}

function quote(text: string): string {
  const fenced = text.replaceAll("```", "'''");
  return fenced.length > maxQuotedOutput ? `${fenced.slice(0, maxQuotedOutput)}\n…` : fenced;
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 300);
}

/**
 * An agent answered what this one asked it (its last message opened by addressing that
 * agent): the answer goes to whoever asked this one, addressed to them.
 */
function reportBack(conversation: Conversation, index: number, said: Said, body: string): string | undefined {
  const { messages } = conversation;
  const asked = lastIndexOf(messages, "assistant", index);
  const question = messages[asked];
  if (question?.role !== "assistant" || !question.text.trimStart().startsWith(`@${said.sender}`)) return undefined;
  const before = messages[lastIndexOf(messages, "user", asked)];
  const asker = before === undefined ? "" : splitSaid(before.text).sender;
  const answer = body.replace(/^(?:@[A-Za-z][\w-]*[,:]?\s*)+/, "");
  if (asker === "" || conversation.agents.includes(asker)) return `${said.sender} says: ${answer}`;
  return `@${asker} ${said.sender} says: ${answer}`;
}

function otherAgentMentioned(conversation: Conversation, body: string): string | undefined {
  const names = mentionsIn(body).filter((name) => name !== conversation.self);
  if (conversation.agents.length === 0) return names[0];
  return names.find((name) => conversation.agents.includes(name));
}

function askOther(other: string, asker: string, body: string): string {
  const after = body.slice(body.indexOf(`@${other}`) + other.length + 1).replace(/^[\s,:]+/, "");
  const question = after.replace(/^(?:to|about|whether|if)\s+/i, "").trim();
  const from = asker === "" ? "" : ` ${asker} asks:`;
  return `@${other}${from} ${question === "" ? "what do you think?" : question}`;
}

/** A command the message asks for, as `shell_cmd` arguments, with a line saying what it does. */
function commandAskedFor(body: string): { preface: string; args: Record<string, unknown> } | undefined {
  const quoted = /\brun\s+`([^`]+)`/i.exec(body)?.[1]?.trim();
  if (quoted) {
    const [command = "", ...args] = quoted.split(/\s+/);
    return { preface: `Running \`${quoted}\`.`, args: args.length > 0 ? { command, args } : { command } };
  }
  const file = /\b(?:show|read|cat|open)\s+(?:me\s+)?(?:the\s+file\s+)?`?([\w./-]+\.[A-Za-z0-9]+)`?/i.exec(body)?.[1];
  if (file) return { preface: `Let me read \`${file}\`.`, args: { command: "cat", args: [file] } };
  if (/\b(?:list|show|what)\b[^.?!]*\b(?:files?|folder|directory)\b|\bls\b/i.test(body)) {
    return { preface: "Let me look at the files.", args: { command: "ls", args: ["-la"] } };
  }
  return undefined;
}

function answerAgent(body: string): string {
  const topic = body.replace(/[?!.]+$/, "").trim();
  const about = topic === "" ? "" : ` On "${topic.length > 80 ? `${topic.slice(0, 80)}…` : topic}":`;
  return `Happy to help.${about} it looks sensible to me; I would keep it small and check the result once more.`;
}

function introduction(conversation: Conversation, sender: string): string {
  const self = conversation.self ?? "an agent";
  const hello = sender === "" ? "Hello!" : `Hello ${sender}!`;
  const name = conversation.self === undefined ? "me" : `@${conversation.self}`;
  const others = conversation.agents.filter((agent) => agent !== conversation.self);
  const can = [
    ...(conversation.tools.includes(shellTool)
      ? [`"${name} list the files"`, `"${name} run \`date\`"`, `"${name} show notes.txt"`]
      : []),
    ...(others[0] === undefined ? [] : [`"${name} ask @${others[0]} what they think of this"`]),
  ];
  const offer = can.length === 0 ? "" : ` Try ${can.join(", ")}.`;
  return `${hello} I am ${self === "an agent" ? self : `@${self}`}, answering with Roundtable's scripted model: no LLM, no key, no network, just a few rules.${offer}`;
}
