import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { safeFileName } from "../../src/world/files/inbound-files.js";
import { ScriptedProvider } from "../fakes/scripted-provider.js";
import { waitUntil } from "../tools/wait-until.js";
import { ana, groupId, mainToken } from "./helpers.js";
import { boss, groupKey, type WorldTelegram, worldOnTelegram } from "./world-telegram.js";

/**
 * A tool's outbox, attacked through the real service path (Telegram fake, the world engine,
 * shell_cmd): an archive a member uploaded and an agent unpacked, hard links, links to another
 * file system, two chats of one world, a stopped call. In both the default sandbox and `none`
 * (where only the descriptor walk of src/tools/outbox-files.ts stands).
 */

let t: WorldTelegram | undefined;
let root = "";
afterEach(async () => {
  await t?.close();
  t = undefined;
  if (root !== "") rmSync(root, { recursive: true, force: true });
  root = "";
});

/** `${ROUNDTABLE_OUTBOX:-outbox}`: the call's outbox however the service names it. */
const out = `"\${ROUNDTABLE_OUTBOX:-outbox}"`;

/** A service directory as `roundtable start` lays it out: the config, `data/` and the world's workdir. */
function serviceLayout() {
  root = mkdtempSync(path.join(tmpdir(), "rt-outbox-attack-"));
  const data = path.join(root, "data");
  mkdirSync(data);
  const config = path.join(root, "roundtable.yaml");
  writeFileSync(config, "tools:\n  shell:\n    timeout: 30s\n");
  writeFileSync(path.join(data, "web-console-token"), "operator-token-0123456789abcdef\n");
  const workdir = path.join(root, "worlds", "main");
  mkdirSync(workdir, { recursive: true });
  return { data, config, workdir, databaseUrl: `file:${path.join(data, "roundtable.db")}` };
}

/** Every file under `directory` with its bytes (to compare before and after). */
function snapshot(directory: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(directory).sort()) {
    if (name.endsWith("-wal") || name.endsWith("-shm") || name.endsWith(".db")) files[name] = "(database)";
    else files[name] = readFileSync(path.join(directory, name), "utf8");
  }
  return files;
}

/** A tar archive of `entries` (made with the system's tar, as a member would). */
function archive(workdir: string, name: string, build: (staging: string) => void): void {
  const staging = mkdtempSync(path.join(tmpdir(), "rt-archive-"));
  build(staging);
  execFileSync("tar", ["-cf", path.join(workdir, name), "-C", staging, "."]);
  rmSync(staging, { recursive: true, force: true });
}

/** A model that runs each script in turn (one shell_cmd call each), then says "done". */
function scripts(...each: string[]): ScriptedProvider {
  return new ScriptedProvider((request) => {
    const done = request.messages.filter((message) => message.role === "tool").length;
    const script = each[done];
    if (script === undefined) return { text: "done" };
    return { toolCalls: [{ name: "shell_cmd", args: { command: "sh", args: ["-c", script] } }] };
  });
}

function postedFiles(world: WorldTelegram): string[] {
  return [...world.fake.callsTo("sendDocument"), ...world.fake.callsTo("sendPhoto")].map((call) =>
    JSON.stringify(call).slice(0, 400),
  );
}

async function callStates(world: WorldTelegram) {
  const calls = await world.world.store.listToolCalls({ chatKey: groupKey, agent: "alice" });
  return calls.map((call) => call.state);
}

for (const sandbox of ["private", "none"] as const)
  describe(`a tool's outbox under attack (tools.shell.sandbox: ${sandbox})`, () => {
    it("an approved tar of an archive holding `outbox -> ../../data` posts nothing and leaves data/ whole", async () => {
      const layout = serviceLayout();
      archive(layout.workdir, "evil.tar", (staging) => symlinkSync("../../data", path.join(staging, "outbox")));
      const alice = scripts(`rm -rf outbox; tar -xf evil.tar; ls -la ${out}`, `echo next > ${out}/next.txt`);
      t = await worldOnTelegram({
        agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
        world: { workdir: layout.workdir },
        tools: { approval: { shell_cmd: "never" }, shell: { sandbox } },
        databaseUrl: layout.databaseUrl,
        serviceState: { configPath: layout.config, cwd: root },
      });
      const before = snapshot(layout.data);
      const config = readFileSync(layout.config, "utf8");
      await t.say(ana, "@alice unpack it");

      expect(snapshot(layout.data)).toEqual(before);
      expect(readFileSync(layout.config, "utf8")).toBe(config);
      // Only the next call's own file reaches the chat; both calls ended.
      const documents = t.fake.callsTo("sendDocument");
      expect(documents).toHaveLength(1);
      expect(JSON.stringify(documents[0])).toContain("next.txt");
      expect(JSON.stringify(t.fake.callsTo("sendDocument"))).not.toContain("operator-token");
      expect(await callStates(t)).toEqual(["done", "done"]);
    });

    it("an archive planting `outbox-posted/<predicted call id> -> ../../..` and `outbox/.call-<id>` leaves the config untouched", async () => {
      const layout = serviceLayout();
      const alice = scripts("tar -xf evil.tar");
      t = await worldOnTelegram({
        agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
        world: { workdir: layout.workdir, approvers: { telegram: [String(boss.id)] } },
        tools: { shell: { sandbox } },
        databaseUrl: layout.databaseUrl,
        serviceState: { configPath: layout.config, cwd: root },
      });
      const config = readFileSync(layout.config, "utf8");
      const before = snapshot(layout.data);
      await t.say(ana, "@alice unpack it");
      // The call waits for its approval: its id is known, as an attacker could predict it.
      const [call] = await t.world.store.listToolCalls({ chatKey: groupKey });
      // Named as the service names it on disk.
      const id = safeFileName(call?.id ?? "");
      archive(layout.workdir, "evil.tar", (staging) => {
        mkdirSync(path.join(staging, "outbox-posted"));
        symlinkSync("../../..", path.join(staging, "outbox-posted", id));
        mkdirSync(path.join(staging, "outbox"));
        writeFileSync(path.join(staging, "outbox", "roundtable.yaml"), "tools:\n  approval:\n    shell_cmd: never\n");
      });
      // An earlier archive planted the new outbox's name too.
      mkdirSync(path.join(layout.workdir, "outbox"), { recursive: true });
      symlinkSync("../../..", path.join(layout.workdir, "outbox", `.call-${id}`));
      const card = t.botMessages().find((message) => message.reply_markup !== undefined);
      const keyboard = card?.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] };
      const once = keyboard.inline_keyboard.flat().find((button) => /Approve once/.test(button.text));
      await t.press(boss, card?.message_id ?? 0, once?.callback_data ?? "");

      expect(readFileSync(layout.config, "utf8")).toBe(config);
      expect(snapshot(layout.data)).toEqual(before);
      expect(readdirSync(root).sort()).toEqual(["data", "roundtable.yaml", "worlds"]);
      // Whatever reached the chat is the archive's own bytes, never a file of the service's.
      expect(postedFiles(t).join("\n")).not.toContain("operator-token");
      expect(await callStates(t)).toEqual(["done"]);
    });

    it("a hard link in the outbox is not posted; a regular file beside it is", async () => {
      const layout = serviceLayout();
      writeFileSync(path.join(layout.workdir, "notes.txt"), "a file of the workdir\n");
      const alice = scripts(
        `ln ../../data/web-console-token ${out}/token.txt; ln notes.txt ${out}/notes.txt; echo fine > ${out}/fine.txt`,
      );
      t = await worldOnTelegram({
        agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
        world: { workdir: layout.workdir },
        tools: { approval: { shell_cmd: "never" }, shell: { sandbox } },
        databaseUrl: layout.databaseUrl,
        serviceState: { configPath: layout.config, cwd: root },
      });
      await t.say(ana, "@alice link them");

      const documents = t.fake.callsTo("sendDocument");
      expect(documents).toHaveLength(1);
      expect(JSON.stringify(documents[0])).toContain("fine.txt");
      expect(t.botTexts()[0]).toBe("alice: fine.txt from shell_cmd");
      expect(readFileSync(path.join(layout.data, "web-console-token"), "utf8")).toBe(
        "operator-token-0123456789abcdef\n",
      );
    });

    it("an outbox linked to another file system does not wedge the next calls", async () => {
      const layout = serviceLayout();
      const elsewhere = mkdtempSync(path.join(existsShm() ? "/dev/shm" : tmpdir(), "rt-elsewhere-"));
      writeFileSync(path.join(elsewhere, "far.txt"), "on another file system\n");
      const alice = scripts(
        `rm -rf outbox; ln -s ${elsewhere} outbox; ln -s ${elsewhere}/far.txt ${out}/far.txt; true`,
        `echo second > ${out}/second.txt`,
        `echo third > ${out}/third.txt`,
      );
      t = await worldOnTelegram({
        agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
        world: { workdir: layout.workdir },
        tools: { approval: { shell_cmd: "never" }, shell: { sandbox } },
        databaseUrl: layout.databaseUrl,
      });
      try {
        await t.say(ana, "@alice go");
        expect(await callStates(t)).toEqual(["done", "done", "done"]);
        const names = t.botTexts().filter((text) => text.includes("from shell_cmd"));
        expect(names).toEqual(["alice: second.txt from shell_cmd", "alice: third.txt from shell_cmd"]);
        expect(readFileSync(path.join(elsewhere, "far.txt"), "utf8")).toBe("on another file system\n");
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    });

    it("two chats of one world never see each other's tool files", async () => {
      const layout = serviceLayout();
      const otherGroup = -1009876;
      const alice = new ScriptedProvider((request) => {
        if (request.messages.at(-1)?.role === "tool") return { text: "done" };
        const first = request.messages.some((message) => message.role === "user" && message.text.includes("slow"));
        const script = first
          ? `echo one > ${out}/one.txt; sleep 3`
          : `sleep 1; ls ${out} > seen-by-two.txt; echo two > ${out}/two.txt`;
        return { toolCalls: [{ name: "shell_cmd", args: { command: "sh", args: ["-c", script] } }] };
      });
      t = await worldOnTelegram({
        agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
        world: { workdir: layout.workdir, defaultAgent: "alice" },
        tools: { approval: { shell_cmd: "never" }, shell: { sandbox } },
        databaseUrl: layout.databaseUrl,
        beforeStart: (fake) => {
          fake.addChat({ id: otherGroup, type: "supergroup", title: "Other team" });
        },
      });
      await Promise.all([t.say(ana, "slow one"), t.say(ana, "fast two", { chatId: otherGroup })]);
      const documentsIn = (chatId: number) =>
        t?.fake
          .callsTo("sendDocument")
          .filter((call) => String(call.params.chat_id) === String(chatId))
          .map((call) => (call.params.document as { file_name: string }).file_name) ?? [];
      // Both calls' files delivered (each chat's delivery runs on its own).
      for (let round = 0; round < 20 && documentsIn(groupId).length + documentsIn(otherGroup).length < 2; round++) {
        await t.world.idle();
      }
      expect(documentsIn(groupId)).toEqual(["one.txt"]);
      expect(documentsIn(otherGroup)).toEqual(["two.txt"]);
      if (sandbox === "private") {
        // In the sandbox a call's outbox/ is its own: the other chat's file is not even there.
        expect(readFileSync(path.join(layout.workdir, "seen-by-two.txt"), "utf8")).toBe("");
      }
    });

    it("a /stop-ped call's files are not posted, by it or by the next call", async () => {
      const layout = serviceLayout();
      const alice = new ScriptedProvider((request) => {
        if (request.messages.at(-1)?.role === "tool") return { text: "after the tool" };
        const slow = request.messages.at(-1)?.text.includes("slow") === true;
        const script = slow ? `echo left > ${out}/left.txt; touch started; sleep 30` : `echo mine > ${out}/mine.txt`;
        return { toolCalls: [{ name: "shell_cmd", args: { command: "sh", args: ["-c", script] } }] };
      });
      t = await worldOnTelegram({
        agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
        world: { workdir: layout.workdir, defaultAgent: "alice" },
        tools: { approval: { shell_cmd: "never" }, shell: { sandbox } },
        databaseUrl: layout.databaseUrl,
      });
      t.fake.userMessage(mainToken, { chatId: groupId, from: ana, text: "slow" });
      await waitUntil("the slow call runs", () => readdirSync(layout.workdir).includes("started"));
      await t.say(ana, "/stop");
      await t.say(ana, "quick");

      const documents = t.fake.callsTo("sendDocument").map((call) => JSON.stringify(call));
      expect(documents).toHaveLength(1);
      expect(documents[0]).toContain("mine.txt");
      expect(documents.join("\n")).not.toContain("left.txt");
      // Taken: the stopped call's outbox is gone from the workdir.
      expect(readdirSync(path.join(layout.workdir, "outbox"))).toEqual([]);
    });
  });

function existsShm(): boolean {
  try {
    return readdirSync("/dev/shm") !== undefined;
  } catch {
    return false;
  }
}

describe("a message's files placed in the workdir", () => {
  it("an inbox a tool replaced by `inbox -> ../../data` is not written through: the files land in a real inbox/", async () => {
    const layout = serviceLayout();
    const alice = new ScriptedProvider((request) => {
      if (request.messages.at(-1)?.role === "tool") return { text: "linked" };
      if (request.messages.filter((message) => message.role === "user").length > 1) return { text: "got it" };
      const script = "rm -rf inbox; ln -s ../../data inbox";
      return { toolCalls: [{ name: "shell_cmd", args: { command: "sh", args: ["-c", script] } }] };
    });
    t = await worldOnTelegram({
      agents: [{ name: "alice", provider: alice, tools: ["shell_cmd"] }],
      world: { workdir: layout.workdir, defaultAgent: "alice" },
      tools: { approval: { shell_cmd: "never" }, shell: { sandbox: "none" } },
      databaseUrl: layout.databaseUrl,
    });
    await t.say(ana, "link the inbox");
    const before = readdirSync(layout.data).sort();
    const { update } = t.fake.userFiles(mainToken, {
      chatId: groupId,
      from: ana,
      caption: "the counts",
      document: { bytes: new TextEncoder().encode("name,count\nalpha,1\n"), name: "counts.csv" },
    });
    await t.settle(update);

    expect(readdirSync(layout.data).sort()).toEqual(before);
    const inbox = path.join(layout.workdir, "inbox");
    const placed = readdirSync(inbox).filter((name) => !name.startsWith("."));
    expect(placed).toHaveLength(1);
    expect(readFileSync(path.join(inbox, placed[0] ?? "", "counts.csv"), "utf8")).toBe("name,count\nalpha,1\n");
  });
});
