import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { ConfigError } from "../../src/errors/roundtable-error.js";

/** The environment variable holding the key that seals stored tokens (docs/slack.md, "Add to Slack"). */
export const secretKeyVariable = "ROUNDTABLE_SECRET_KEY";

const version = "v1";
const ivBytes = 12;
const tagBytes = 16;

/**
 * Seals secrets kept in the database (an installed workspace's bot token) with AES-256-GCM under
 * the service's key: 32 bytes, given as 64 hex digits or base64 (`openssl rand -base64 32`).
 * A sealed value is `v1.<iv>.<tag>.<ciphertext>` (base64url); `associated` (the workspace) is
 * bound to it, so a value copied to another workspace's row does not open.
 */
export class SecretSeal {
  private readonly key: Buffer;

  constructor(key: string | undefined) {
    this.key = parseKey(key);
  }

  seal(secret: string, associated: string): string {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv, { authTagLength: tagBytes });
    cipher.setAAD(Buffer.from(associated, "utf8"));
    const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    return [version, iv, cipher.getAuthTag(), sealed]
      .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
      .join(".");
  }

  /** The secret, or undefined when the value is not one this key sealed for `associated`. */
  open(sealed: string, associated: string): string | undefined {
    const [tag, iv, auth, body] = sealed.split(".");
    if (tag !== version || iv === undefined || auth === undefined || body === undefined) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"), {
        authTagLength: tagBytes,
      });
      decipher.setAAD(Buffer.from(associated, "utf8"));
      decipher.setAuthTag(Buffer.from(auth, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      return undefined;
    }
  }
}

function parseKey(key: string | undefined): Buffer {
  const text = key?.trim() ?? "";
  if (text === "") {
    throw new ConfigError(
      `channels.slack.oauth needs ${secretKeyVariable}: 32 random bytes (openssl rand -base64 32) that seal the installed workspaces' tokens`,
    );
  }
  const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : Buffer.from(text, "base64");
  if (bytes.length !== 32) {
    throw new ConfigError(
      `${secretKeyVariable} must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32); it is ${bytes.length} bytes`,
    );
  }
  return bytes;
}
