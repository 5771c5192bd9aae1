import { z } from "zod";
import type {
  ApprovalClick,
  ChatRef,
  InboundCommand,
  InboundMessage,
  Sender,
} from "../../src/world/channel-adapter.js";

/** The longest message the page may send (the world keeps it whole). */
const maxMessageLength = 20_000;

const personName = z
  .string()
  .trim()
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,39}$/u, "a name of 1–40 letters, digits, spaces, '.', '_' or '-'");

const worldName = z.string().min(1).max(64);

export const sendBodySchema = z
  .object({
    world: worldName,
    /** A label typed on the page (shared token only); a person's login names them instead. */
    name: personName.optional(),
    text: z.string().max(maxMessageLength, `at most ${maxMessageLength} characters`),
    /** Made by the page for each message, so a resent request is stored once. */
    clientId: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, "8–64 letters, digits, '_' or '-'"),
  })
  .strict();

/** Files one upload may carry. */
const maxUploadFiles = 10;

/**
 * A message with files from the page: the message's fields, text possibly empty, and each file
 * as its name and its bytes in base64 (the page reads them with FileReader).
 */
export const uploadBodySchema = z
  .object({
    world: worldName,
    name: personName.optional(),
    text: z.string().max(maxMessageLength, `at most ${maxMessageLength} characters`),
    clientId: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, "8–64 letters, digits, '_' or '-'"),
    files: z
      .array(
        z
          .object({
            name: z.string().trim().min(1, "a file name").max(200),
            data: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "the file's bytes in base64"),
          })
          .strict(),
      )
      .min(1, "at least one file")
      .max(maxUploadFiles, `at most ${maxUploadFiles} files`),
  })
  .strict();

export const approveBodySchema = z
  .object({
    world: worldName,
    /** A label typed on the page (shared token only); a person's login names them instead. */
    name: personName.optional(),
    approvalId: z.string().min(1).max(128),
    choice: z.enum(["once", "session", "deny", "edit"]),
    reason: z.string().max(500).optional(),
    /** `edit`: the arguments as the person edited them (checked by the world). */
    editedArgumentsJson: z.string().max(20_000).optional(),
  })
  .strict();

/** A command pressed on the page (the Stop button of an answer being written). */
export const commandBodySchema = z
  .object({
    world: worldName,
    /** A label typed on the page (shared token only); a person's login names them instead. */
    name: personName.optional(),
    command: z.string().regex(/^[a-z]{1,32}$/, "a command name such as stop"),
    args: z.array(z.string().max(200)).max(10).default([]),
    clientId: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, "8–64 letters, digits, '_' or '-'"),
  })
  .strict();

export type SendBody = z.infer<typeof sendBodySchema>;
export type UploadBody = z.infer<typeof uploadBodySchema>;
export type CommandBody = z.infer<typeof commandBodySchema>;
export type ApproveBody = z.infer<typeof approveBodySchema>;

/** The result of reading a body: the value, or a sentence saying what is wrong with it. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** Parse JSON text against a schema; the problem names the field and what was expected. */
export function parseBody<T>(schema: z.ZodType<T>, text: string): Parsed<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: "the body is not JSON" };
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return { ok: false, problem: `${where}${issue?.message ?? "invalid body"}` };
}

/** The web chat of a world: one shared chat per world. */
export function webChat(world: string): ChatRef {
  return { platform: "web", workspace: world, channel: "browser" };
}

/** The person at the page: their login's name, or the label a shared-token holder typed (see the README). */
function webSender(name: string): Sender {
  return { id: name, displayName: name, isBot: false };
}

/** The message as the world takes it; `name` is who sent it (from the login, see `credentials.ts`). */
export function toInboundMessage(body: SendBody, name: string, receivedAt: Date): InboundMessage {
  return {
    chat: webChat(body.world),
    platformMessageId: body.clientId,
    sender: webSender(name),
    text: body.text,
    mentions: [],
    receivedAt,
    raw: body,
  };
}

/** An upload as the world takes it: the files' bytes come with it (nothing to fetch); `raw` keeps only their names. */
export function toInboundUpload(body: UploadBody, name: string, receivedAt: Date): InboundMessage {
  const files = body.files.map((file) => ({
    name: file.name,
    bytes: new Uint8Array(Buffer.from(file.data, "base64")),
  }));
  return {
    ...toInboundMessage(body, name, receivedAt),
    attachments: files,
    raw: { ...body, files: body.files.map((file) => ({ name: file.name })) },
  };
}

export function toApprovalClick(body: ApproveBody, name: string): ApprovalClick {
  return {
    chat: webChat(body.world),
    approvalId: body.approvalId,
    choice: body.choice,
    user: webSender(name),
    ...(body.reason === undefined || body.reason === "" ? {} : { reason: body.reason }),
    ...(body.editedArgumentsJson === undefined ? {} : { editedArgumentsJson: body.editedArgumentsJson }),
    raw: body,
  };
}

export function toInboundCommand(body: CommandBody, name: string): InboundCommand {
  return {
    chat: webChat(body.world),
    name: body.command,
    args: body.args,
    sender: webSender(name),
    platformEventId: body.clientId,
    raw: body,
  };
}
