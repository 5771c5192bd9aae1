#!/usr/bin/env node
// `npm run build`: compiles src/ and channels/ to dist/ with tsc (incremental), copies what tsc
// does not emit (generated Prisma clients, assets) to the same place under dist/, then bundles the
// CLI into dist/bundle/ (scripts/bundle.mjs). The service then runs on plain Node, with no
// TypeScript loader in the process.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, utimesSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "./bundle.mjs";

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
// What tsc does not emit goes along as it is: the generated Prisma clients (JavaScript) and
// assets read at run time (the web console's files), at the same place under dist/.
function copyOthers(folder) {
  for (const entry of readdirSync(path.join(root, folder), { withFileTypes: true })) {
    const relative = path.join(folder, entry.name);
    if (entry.isDirectory()) copyOthers(relative);
    else if (!entry.name.endsWith(".ts")) {
      mkdirSync(path.join(root, "dist", folder), { recursive: true });
      copyFileSync(path.join(root, relative), path.join(root, "dist", relative));
    }
  }
}
rmSync(path.join(root, "dist", "src", "storage", "prisma", "generated"), { recursive: true, force: true });
for (const folder of ["src", "channels"]) copyOthers(folder);
await bundle(root);
// tsc leaves its build info untouched when nothing changed; the stamp says "built now" for bin/roundtable.js.
const now = new Date();
utimesSync(path.join(root, "dist", ".tsbuildinfo"), now, now);
