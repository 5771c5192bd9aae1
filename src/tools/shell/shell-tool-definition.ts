import type { ToolDefinition } from "../../providers/model-provider.js";
import { shellToolName } from "../tool-list-entry.js";
import type { ProcessIsolation } from "./process-namespace.js";

/** What the model passes to `shell_cmd`. */
export interface ShellInput {
  command: string;
  args?: string[];
  cwd?: string;
  timeoutSeconds?: number;
}

/** What the description says of the processes a call leaves: only what holds in the mode in effect. */
function processTreeSentence(isolation: ProcessIsolation["kind"]): string {
  switch (isolation) {
    case "pid-namespace":
      return (
        "The program runs in a PID namespace of its own (it sees only its own processes); when it " +
        "exits, times out or is stopped, every process it started is ended with it, however it detached."
      );
    case "marker":
      return (
        "When the program exits, times out or is stopped, the processes it started are ended too, also " +
        "ones that detached (setsid, a double fork, a new process group): they are found by their process " +
        "group, their parent and a marker in the environment they inherited."
      );
  }
}

/** What the description says of the file system and the network a call sees, and where its outbox is. */
function sandboxSentence(isolation: ProcessIsolation): string {
  const sandbox = isolation.kind === "pid-namespace" ? isolation.sandbox?.mode : undefined;
  const files =
    sandbox === "strict"
      ? "The file system is read-only except the working directory and a private /tmp; the service's own " +
        "database, config and data directory are hidden. "
      : sandbox === "private"
        ? "The service's own database, config and data directory are hidden from the program. "
        : "";
  const network = isolation.kind === "pid-namespace" && !isolation.network ? "It has no network. " : "";
  const outbox =
    sandbox === undefined
      ? "To post files to the chat, write them into the directory named by $ROUNDTABLE_OUTBOX (this call's own)."
      : "To post files to the chat, write them into outbox/ in the working directory (this call's own, also named by $ROUNDTABLE_OUTBOX).";
  return `${files}${network}${outbox}`;
}

/**
 * The `shell_cmd` definition; `maxTimeoutSeconds` is the configured cap, said to the model, and
 * `isolation` the mode its calls run in.
 */
export function shellToolDefinition(maxTimeoutSeconds: number, isolation: ProcessIsolation): ToolDefinition {
  return {
    name: shellToolName,
    description:
      "Run one program, without a shell, in the working directory. `command` is an executable name " +
      "(looked up on PATH) or a path; `args` are passed to it exactly as given: no globbing, pipes, " +
      "redirection, variables or quoting (to use those, run a shell yourself, e.g. command `sh` with " +
      'args ["-c", "…"]). stdin is empty. Returns the exit code, stdout and stderr; long output is cut ' +
      `in the middle. ${processTreeSentence(isolation.kind)} ${sandboxSentence(isolation)}`,
    inputSchema: {
      type: "object",
      properties: {
        command: { type: "string", minLength: 1, description: "Executable name or path." },
        args: { type: "array", items: { type: "string" }, description: "Arguments, one item each." },
        cwd: {
          type: "string",
          description: "Directory to run in, relative to the working directory (which it may not leave).",
        },
        timeoutSeconds: {
          type: "number",
          exclusiveMinimum: 0,
          description: `Seconds before the program is stopped (at most ${maxTimeoutSeconds}).`,
        },
      },
      required: ["command"],
      additionalProperties: false,
    },
  };
}
