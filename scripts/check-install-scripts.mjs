#!/usr/bin/env node
// `.ci/run`'s install-script gate: every dependency in package-lock.json that has an install script
// (`hasInstallScript`) must be named in package.json's `allowScripts`, and every `allowScripts`
// entry must still name such a dependency. npm 11.16+ only warns about an uncovered script
// ("N packages have install scripts not yet covered by allowScripts"); npm 12 silently skips it,
// so an upgrade that brings a new one would install a broken tree without anyone noticing. This
// reads the lockfile, so it needs no node_modules and fails before the install does.
//
// Entries are name-only (`"esbuild": true`): npm matches a pinned entry (`"esbuild@0.28.2"`) only
// against a version it can verify from the lockfile's `resolved` URL, and this lockfile carries
// none (omit-lockfile-registry-resolved), so npm would refuse a pin. The versions reviewed are
// printed here, and a version change shows in package-lock.json's diff (docs/deploy.md,
// "Install scripts").
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8"));
const allowed = manifest.allowScripts ?? {};

/** The package name of a lockfile key: the part after its last `node_modules/`. */
function nameOf(key) {
  const at = key.lastIndexOf("node_modules/");
  return key.slice(at + "node_modules/".length);
}

const withScripts = new Map();
for (const [key, entry] of Object.entries(lock.packages ?? {})) {
  if (key === "" || !entry.hasInstallScript) continue;
  const name = entry.name ?? nameOf(key);
  const versions = withScripts.get(name) ?? new Set();
  versions.add(entry.version);
  withScripts.set(name, versions);
}

const problems = [];
for (const [name, versions] of withScripts) {
  if (!(name in allowed)) {
    problems.push(
      `${name}@${[...versions].join(", ")} has an install script not covered by allowScripts in package.json: review it, then \`npm install-scripts approve ${name}\` (or \`deny\`)`,
    );
  }
}
for (const key of Object.keys(allowed)) {
  if (!withScripts.has(key))
    problems.push(`allowScripts names ${key}, which has no install script in package-lock.json: remove it`);
}

if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`install scripts: ${problem}\n`);
  process.exit(1);
}
const reviewed = [...withScripts].map(
  ([name, versions]) => `${name}@${[...versions].join(",")}${allowed[name] ? "" : " (denied)"}`,
);
process.stdout.write(`install scripts: all ${withScripts.size} covered by allowScripts: ${reviewed.join(" ")}\n`);
