/**
 * Import rules (docs/architecture.md, "Folders"), checked by `npm run deps`.
 * Paths are relative to the directory depcruise runs in (the repository root).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Circular imports hide layering mistakes and break module initialisation order.",
      from: {},
      to: { circular: true },
    },
    {
      name: "world-knows-no-platform-or-provider",
      severity: "error",
      comment:
        "src/world is the core: it knows no channel, provider, agent, tool or Prisma code. Those depend on it, never the reverse.",
      from: { path: "^src/world/" },
      to: { path: ["^channels/", "^src/providers/", "^src/storage/prisma/", "^src/agents/", "^src/tools/"] },
    },
    {
      name: "world-owns-its-model",
      severity: "error",
      comment:
        "The Store port, its records and the world's settings live in src/world; storage implements them and src/app maps the config to them. The world never reads storage or config code.",
      from: { path: "^src/world/" },
      to: { path: ["^src/storage/", "^src/config/", "^src/app/", "^src/cli/", "^src/http/"] },
    },
    {
      name: "world-uses-no-platform-or-model-sdk",
      severity: "error",
      comment: "Platform and model SDKs belong in channels/ and src/providers/, never in src/world.",
      from: { path: "^src/world/" },
      to: {
        dependencyTypes: ["npm", "npm-dev", "npm-optional", "npm-peer", "npm-no-pkg", "npm-unknown"],
        path: [
          "node_modules/(openai|@anthropic-ai|@google|grammy|@grammyjs|@slack|discord\\.js|@discordjs|@prisma|prisma|pg|@libsql)/",
        ],
      },
    },
    {
      name: "agents-reach-delivery-only-through-the-answer",
      severity: "error",
      comment:
        'src/agents holds one handle per answer (src/world/delivery/answer-draft.ts): no post key, draft record, stream or hold. The rest of src/world/delivery is the world\'s (docs/architecture.md, "Delivery").',
      from: { path: "^src/agents/" },
      to: { path: "^src/world/delivery/", pathNot: "^src/world/delivery/answer-draft\\.ts$" },
    },
    {
      name: "delivery-never-imports-the-outbox",
      severity: "error",
      comment:
        'The outbox persists, emits and enqueues; the deliver step, its hold and the draft records are src/world/delivery\'s, which reaches the outbox only through its own port (`DeliveryOutbox`, `AnswerOutbox`), so the two never import each other (docs/architecture.md, "Delivery").',
      from: { path: "^src/world/delivery/" },
      to: { path: "^src/world/outbox\\.ts$" },
    },
    {
      name: "only-delivery-writes-to-channels",
      severity: "error",
      comment:
        'Posting, editing and streaming on a channel\'s primitives (the channel writer, the part and file writers, the edit stream) is used only inside src/world/delivery: every post is made and recorded there, once (docs/architecture.md, "Posting once").',
      from: { path: "^(src|channels)/", pathNot: "^src/world/delivery/" },
      to: { path: "^src/world/delivery/(channel-writer|part-writer|file-writer|edit-stream)\\.ts$" },
    },
    {
      name: "channels-import-only-world",
      severity: "error",
      comment:
        "A channel sees only the world's public types (plus errors and logging); it never reaches into agents, providers, tools, storage or config.",
      from: { path: "^channels/" },
      to: { path: "^src/", pathNot: ["^src/world/", "^src/errors/", "^src/log/"] },
    },
    {
      name: "channels-through-their-entry",
      severity: "error",
      comment:
        'Of src/world a channel imports only src/world/channel-adapter.ts, which re-exports everything a channel may use (docs/architecture.md, "Adding a channel").',
      from: { path: "^channels/" },
      to: { path: "^src/world/", pathNot: "^src/world/channel-adapter\\.ts$" },
    },
    {
      name: "channels-kit-is-platform-free",
      severity: "error",
      comment:
        "channels/kit holds the texts and helpers channels share: it imports no platform SDK and no channel, so every adapter can use it.",
      from: { path: "^channels/kit/" },
      to: {
        path: ["^channels/(?!kit/)", "node_modules/(grammy|@grammyjs|@slack|discord\\.js|@discordjs|ws)/"],
      },
    },
    {
      name: "channels-never-import-turns",
      severity: "error",
      comment:
        "A turn's state machine, tool results and approvals (src/world/turn/) are the world's own: a channel sees only the approval types, through the channel entry src/world/channel-adapter.ts.",
      from: { path: "^channels/" },
      to: { path: "^src/world/turn/" },
    },
    {
      name: "turns-through-their-entry",
      severity: "error",
      comment:
        "src/world/turn/ owns a turn from start to close (one close, one expiry, one decider check); everything outside it uses src/world/turn/index.ts, except src/world/approval-types.ts, which re-exports the approval types for the world's records and for the channel entry (src/world/channel-adapter.ts).",
      from: { path: "^(src|channels)/", pathNot: ["^src/world/turn/", "^src/world/approval-types\\.ts$"] },
      to: { path: "^src/world/turn/", pathNot: "^src/world/turn/index\\.ts$" },
    },
    {
      name: "prisma-stays-in-storage",
      severity: "error",
      comment: "Prisma types never leave src/storage/prisma (docs/architecture.md, Folders).",
      from: { pathNot: "^src/storage/prisma/" },
      to: { path: ["^src/storage/prisma/generated/", "node_modules/@prisma/client/"] },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment: "An import that resolves to nothing is a typo or a missing dependency.",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: ["node_modules", "^src/storage/prisma/generated/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
    },
  },
};
