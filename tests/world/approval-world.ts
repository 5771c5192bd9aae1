import type { ApprovalsConfig } from "../../src/config/schema.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import type { HarnessAgent } from "./harness.js";

/*
 * The set-up the approval tests of every platform share (tests/<platform>/world-deny-edit,
 * world-always-allow, world-quorum): a model that asks to run `echo`, the one agent that uses
 * it, and the `approvals` section as a test writes it.
 */

/** A model that runs `echo <word>` when asked to (`run echo <word>`), and says what every tool result told it. */
export function echoWhenAsked(toolTexts: string[]): ScriptedProvider {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") {
      toolTexts.push(last.text);
      return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    }
    const word = /run echo (\w+)/.exec(last?.text ?? "")?.[1];
    if (word === undefined) return { text: "noted." };
    return { text: "On it.", toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: [word] } }] };
  });
}

/** A model that says `text` and runs `echo <word>` for the word after "echo" (default hello), then says what the tool said. */
export function echoTheWord(text = "On it."): ScriptedProvider {
  return new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `tool said: ${last.text.replace(/\s+/g, " ").trim()}` };
    const word = /echo (\w+)/.exec(last?.text ?? "")?.[1] ?? "hello";
    return { text, toolCalls: [{ name: "shell_cmd", args: { command: "echo", args: [word] } }] };
  });
}

/** Alice, the one agent, with the shell tool and `provider`. */
export function echoAgent(provider: ScriptedProvider): HarnessAgent[] {
  return [{ name: "alice", provider, tools: ["shell_cmd"] }];
}

/** An `approvals` section as a test writes it (as in a config file: durations as text). */
export function approvalsConfig(section: Record<string, unknown> = {}): ApprovalsConfig {
  return section as unknown as ApprovalsConfig;
}
