import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** Who a token or a session belongs to: a person of `channels.web.users`, or the shared token's holder. */
export type WebLogin = { kind: "person"; name: string } | { kind: "shared" };

/**
 * The name a shared-token holder acts under once `channels.web.users` names people: not a
 * person of the list (the config refuses a user of this name), so it is in `members.web` or
 * `approvers.web` only where those say `*` or name it.
 */
const sharedHolderName = "operator";

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * The tokens the web console accepts: the shared `WEB_CONSOLE_TOKEN` and each person's token
 * of `channels.web.users`. A presented token is compared with every one of them in constant
 * time (`timingSafeEqual` on sha256 digests, so lengths do not leak either).
 */
export class WebCredentials {
  private readonly shared: Buffer;
  private readonly people: { name: string; token: string; digest: Buffer }[];

  constructor(
    private readonly sharedToken: string,
    users: Readonly<Record<string, string>> = {},
  ) {
    // Programming error: the token is the configured one (not blank) or a generated one.
    if (sharedToken === "") throw new Error("the web console needs a token");
    this.shared = digest(sharedToken);
    this.people = Object.entries(users).map(([name, token]) => ({ name, token, digest: digest(token) }));
  }

  /** Whether `channels.web.users` names people: names then come from logins only. */
  get hasPeople(): boolean {
    return this.people.length > 0;
  }

  /** Whose token this is, or undefined. Every known token is compared, whichever matches. */
  match(presented: string): WebLogin | undefined {
    const asked = digest(presented);
    let found: WebLogin | undefined;
    for (const person of this.people) {
      if (timingSafeEqual(asked, person.digest) && found === undefined) found = { kind: "person", name: person.name };
    }
    if (timingSafeEqual(asked, this.shared) && found === undefined) found = { kind: "shared" };
    return found;
  }

  /**
   * A check stored with a session: an HMAC of the session id under the token used to log in.
   * A session whose person was removed, or whose token changed since, no longer checks out.
   */
  sessionCheck(login: WebLogin, sessionId: string): string | undefined {
    const token = login.kind === "shared" ? this.sharedToken : this.people.find((p) => p.name === login.name)?.token;
    if (token === undefined) return undefined;
    return createHmac("sha256", token).update(sessionId).digest("base64url");
  }

  /** The name a login acts under, given the name typed on the page (a label for shared-token holders). */
  actingName(login: WebLogin, typed: string | undefined): string | undefined {
    if (login.kind === "person") return login.name;
    return this.hasPeople ? sharedHolderName : typed;
  }

  /** The name fixed by a login (shown on the page, never asked), or undefined when the page may type one. */
  fixedName(login: WebLogin): string | undefined {
    return this.actingName(login, undefined);
  }
}

/** Two secrets equal, in constant time (for values of any length). */
export function sameSecret(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The hash a session id is stored under. */
export function sessionIdHash(sessionId: string): string {
  return createHash("sha256").update(sessionId).digest("hex");
}
