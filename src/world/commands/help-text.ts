import { chatCommands } from "./chat-commands.js";

/** `/help`: what the commands do and how to talk to the agents. */
export function helpText(): string {
  const lines = chatCommands.map((command) => `/${command.name}: ${command.description}.`);
  return [
    "Address an agent with @name at the start of a message; /agents lists them.",
    "Commands (each as a message of its own):",
    ...lines,
  ].join("\n");
}
