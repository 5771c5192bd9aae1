import { ScriptedProvider } from "./scripted-provider.js";

/** A CSV of three lines (a header and two rows), as people share them. */
export const countsCsv = "name,count\nalpha,1\nbeta,2\n";

/**
 * The workdir path a request view gave a file: the `at …` of its line
 * `[file <name>, <type>, <size>, at inbox/<message id>/<name>]`; undefined when no line names it.
 */
export function inboxPathIn(text: string, name: string): string | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`\\[file ${escaped}, [^\\]]*, at (inbox/[^\\]]+)\\]`).exec(text)?.[1];
}

/**
 * A model that counts a shared file's lines as a model would: it reads the file's workdir path
 * from the request view, runs `wc -l <that path>` with `shell_cmd`, then answers with the tool's
 * output (whitespace collapsed). `paths` records every path it read from a view.
 */
export function inboxLineCounter(name: string): { model: ScriptedProvider; paths: string[] } {
  const paths: string[] = [];
  const model = new ScriptedProvider((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `wc says: ${last.text.replace(/\s+/g, " ").trim()}` };
    const found = inboxPathIn(last?.text ?? "", name);
    if (found === undefined) return { text: `I see no ${name}.` };
    paths.push(found);
    return { text: "Counting.", toolCalls: [{ name: "shell_cmd", args: { command: "wc", args: ["-l", found] } }] };
  });
  return { model, paths };
}
