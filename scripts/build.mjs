#!/usr/bin/env node
// `npm run build`: compiles src/ and channels/ to dist/ with tsc (incremental), then copies the
// generated Prisma clients (JavaScript that tsc does not emit) next to the compiled storage code.
// The service then runs on plain Node, with no TypeScript loader in the process.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, rmSync, utimesSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (!existsSync(path.join(root, "src", "cli", "main.ts"))) {
  // An install before the sources are there (the Dockerfile's dependency layer): nothing to build yet.
  process.stderr.write("build: no src/ yet, skipped\n");
  process.exit(0);
}
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const compiled = spawnSync(process.execPath, [tsc, "-p", path.join(root, "tsconfig.build.json")], {
  cwd: root,
  stdio: "inherit",
});
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
const generated = path.join("src", "storage", "prisma", "generated");
if (existsSync(path.join(root, generated))) {
  rmSync(path.join(root, "dist", generated), { recursive: true, force: true });
  cpSync(path.join(root, generated), path.join(root, "dist", generated), { recursive: true });
}
// The web console's script and stylesheet are served as they are: copied beside the compiled channel.
const webAssets = path.join("channels", "web", "assets");
if (existsSync(path.join(root, webAssets))) {
  rmSync(path.join(root, "dist", webAssets), { recursive: true, force: true });
  cpSync(path.join(root, webAssets), path.join(root, "dist", webAssets), { recursive: true });
}
// tsc leaves its build info untouched when nothing changed; the stamp says "built now" for bin/roundtable.js.
const now = new Date();
utimesSync(path.join(root, "dist", ".tsbuildinfo"), now, now);
