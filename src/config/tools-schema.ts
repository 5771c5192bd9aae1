/*
 * `tools`: the shell tool, MCP servers, which tools need an approval, and the rules
 * (`tools.rules`) that allow or deny calls by their arguments.
 */
import { z } from "zod";
import { booleanText, durationSchema, nameSchema, numeric } from "./value-schemas.js";

const stdioServerSchema = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    timeout: durationSchema.optional(),
  })
  .strict();

const httpServerSchema = z
  .object({
    url: z.string().url(),
    headers: z.record(z.string(), z.string()).default({}),
    timeout: durationSchema.optional(),
  })
  .strict();

const mcpServerSchema = z.union([stdioServerSchema, httpServerSchema]);
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

const toolRuleSchema = z
  .object({
    /** Exact tool name or `<server>__*`. */
    tool: z.string().min(1),
    /** Per-argument regular expressions that must all match (arrays are joined with spaces). */
    match: z.record(z.string(), z.string()).default({}),
    /** `allow`: runs without asking (an `always` rule); `deny`: blocked. */
    action: z.enum(["allow", "deny"]),
  })
  .strict();
export type ToolRule = z.infer<typeof toolRuleSchema>;

export const shellConfigSchema = z
  .object({
    enabled: booleanText(z.boolean()).default(true),
    timeout: durationSchema.default(60_000),
    maxOutputBytes: numeric(z.number().int().min(256)).default(16_384),
    /** Environment variables passed through to commands. */
    envAllowlist: z.array(z.string()).default(["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"]),
    /** What a call sees of the file system (docs/sandbox.md): `private` hides the service's own state. */
    sandbox: z.enum(["private", "strict", "none"]).default("private"),
    /** False: each call runs without network (a network namespace with only loopback). */
    network: booleanText(z.boolean()).default(true),
  })
  .strict();

export const toolsConfigSchema = z
  .object({
    shell: shellConfigSchema.default(shellConfigSchema.parse({})),
    mcpServers: z
      .record(
        nameSchema.refine(
          (name) => !name.includes("__"),
          "expected a server name without '__' (it separates server and tool)",
        ),
        mcpServerSchema,
      )
      .default({}),
    mcpTimeout: durationSchema.default(60_000),
    approval: z.record(z.string(), z.enum(["never", "required"])).default({}),
    rules: z.array(toolRuleSchema).default([]),
  })
  .strict();

export type ToolsConfig = z.infer<typeof toolsConfigSchema>;
export type ShellConfig = z.infer<typeof shellConfigSchema>;
