// Part of `npm run build` (scripts/build.mjs): bundles the compiled CLI (dist/src/cli/main.js) and
// what it imports into a few files under dist/bundle/, which `npm start`, the `roundtable` binary
// and the Docker image run. Node then resolves, reads and links tens of modules at start instead
// of about a thousand (docs/operations.md, "Performance"). Dynamic imports stay separate chunks, loaded only
// when used (channel adapters and their SDKs, model SDKs, the OpenTelemetry SDK, one database's client).
import { cpSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * Packages left out of the bundle and loaded from node_modules as they are: they find files
 * next to their own code at run time (native addons, worker threads, WebAssembly, generated
 * clients), or they are SDKs no test runs through the bundle.
 */
const external = [
  "libsql",
  "@libsql/*",
  "pino",
  "pino-pretty",
  "thread-stream",
  "pg",
  "pg-native",
  "graphile-worker",
  "@prisma/*",
  "prisma",
  "@slack/*",
  "discord.js",
  "@discordjs/*",
  "@google/genai",
  "@anthropic-ai/sdk",
];

/** The generated Prisma clients load their WebAssembly from their own folder: imported from dist/src as they are. */
function generatedClients(outputDirectory) {
  return {
    name: "generated-prisma-clients",
    setup(build) {
      build.onResolve({ filter: /\/generated\/(sqlite|postgresql)\/index\.js$/ }, (arguments_) => {
        const target = path.resolve(arguments_.resolveDir, arguments_.path);
        return { path: `./${path.relative(outputDirectory, target).split(path.sep).join("/")}`, external: true };
      });
    },
  };
}

/** Bundles dist/src/cli/main.js into dist/bundle/main.js and its chunks. */
export async function bundle(root) {
  // esbuild comes with tsx (a dependency of the package), also in a production install.
  const { build } = await import(createRequire(import.meta.url).resolve("esbuild"));
  const outputDirectory = path.join(root, "dist", "bundle");
  rmSync(outputDirectory, { recursive: true, force: true });
  await build({
    entryPoints: [path.join(root, "dist", "src", "cli", "main.js")],
    outdir: outputDirectory,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    sourcemap: "linked",
    legalComments: "none",
    // Without comments and indentation the source V8 keeps in memory for each chunk is about half
    // as big, and pure ASCII: one byte a character instead of two (a comment with a "→" in a
    // chunk made V8 hold the whole chunk in UTF-16). Names stay as written, for stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    charset: "ascii",
    logLevel: "warning",
    external,
    // Bundled CommonJS packages call require() for Node's own modules; ESM has none of its own.
    banner: {
      js: "import { createRequire as bundleCreateRequire } from 'node:module'; const require = bundleCreateRequire(import.meta.url);",
    },
    plugins: [generatedClients(outputDirectory)],
  });
  refuseDefaultOnlyChunks(outputDirectory);
  // The web console reads its assets next to its code (new URL("./assets/…", import.meta.url)).
  cpSync(path.join(root, "channels", "web", "assets"), path.join(outputDirectory, "assets"), { recursive: true });
}

/**
 * A dynamic `import("pkg")` of a bundled CommonJS package becomes a chunk that exports only
 * `default`, so `const { Name } = await import("pkg")` gets undefined ("Api is not a
 * constructor" from grammY). Import such a package statically in a small file of ours and load
 * that file lazily instead (src/cli/check/telegram-identity.ts), or list the package as external.
 */
function refuseDefaultOnlyChunks(outputDirectory) {
  const offenders = readdirSync(outputDirectory).filter(
    (name) =>
      name.endsWith(".js") &&
      /(?:^|;)export default require_\w+\(\);?$/m.test(readFileSync(path.join(outputDirectory, name), "utf8")),
  );
  if (offenders.length > 0) {
    throw new Error(
      `bundle: ${offenders.join(", ")} re-export${offenders.length === 1 ? "s" : ""} a CommonJS package as \`default\` only (a dynamic import of it loses its named exports); import it statically in a file that is loaded lazily, or make it external`,
    );
  }
}
