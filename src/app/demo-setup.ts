import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

/** The demo's world and agents, as a user would write them in `roundtable.yaml`. */
export const demoWorld = "demo";

/** Where `roundtable demo` keeps everything of one run (a fresh directory, removed at the end). */
export interface DemoLayout {
  /** The config the demo runs (written so a newcomer can read it and copy it). */
  configPath: string;
  databaseUrl: string;
  /** The agents' working directory: `shell_cmd` runs here and cannot leave it. */
  scratch: string;
}

/**
 * Writes one demo run into `directory`: a config of two agents on the built-in scripted model
 * (`alice` with `shell_cmd`, every call behind an approval; `bob` without tools), a scratch
 * directory seeded with a few files for `alice` to look at, and the SQLite file's URL.
 */
export async function prepareDemo(directory: string): Promise<DemoLayout> {
  const scratch = path.join(directory, "scratch");
  await mkdir(path.join(scratch, "src"), { recursive: true });
  for (const [name, text] of Object.entries(seedFiles)) await writeFile(path.join(scratch, name), text);
  const configPath = path.join(directory, "roundtable.yaml");
  await writeFile(configPath, demoConfigText(scratch));
  return { configPath, databaseUrl: `file:${path.join(directory, "demo.db")}`, scratch };
}

function demoConfigText(scratch: string): string {
  return [
    "# The world `roundtable demo` runs. The scripted model needs no key and no network;",
    "# swap `provider: scripted` for openai, anthropic or google to use a real model.",
    "agents:",
    "  - name: alice",
    "    provider: scripted",
    "    model: scripted",
    "    description: Looks into the scratch folder with shell_cmd (every command waits for your approval).",
    "    systemPrompt: You are alice, a careful helper who checks files before answering.",
    "    tools: [shell_cmd]",
    "  - name: bob",
    "    provider: scripted",
    "    model: scripted",
    "    description: Gives a second opinion; has no tools.",
    "    systemPrompt: You are bob, a reviewer who answers briefly.",
    "worlds:",
    `  - name: ${demoWorld}`,
    "    agents: [alice, bob]",
    "    defaultAgent: alice",
    `    workdir: ${JSON.stringify(scratch)}`,
    "",
  ].join("\n");
}

const seedFiles: Record<string, string> = {
  "README.md": "# Scratch\n\nA folder for the demo: alice may look at it (with your approval).\n",
  "notes.txt": "- ship the demo\n- ask bob for a review\n- water the plants\n",
  "todo.md": "1. list the files\n2. read notes.txt\n3. ask bob what he thinks\n",
  "src/hello.sh": '#!/bin/sh\necho "hello from the scratch folder"\n',
};
