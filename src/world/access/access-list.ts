import type { Sender } from "../inbound.js";

/** Entry that lets everyone in. */
export const everyoneEntry = "*";
/** Entry for the person whose message started the turn (approvers only). */
export const requesterEntry = "requester";
/** Entry for the chat's administrators (the platform reports them as the `admin` role). */
const adminsEntry = "admins";
const rolePrefix = "role:";

/** The roles of the person, looked up only when a list names a role. */
export type RolesLookup = () => Promise<readonly string[]>;

/** Who is being checked against a list. */
export interface AccessSubject {
  user: Sender;
  /** Platform id of the person whose message started the turn (approvals). */
  requesterId?: string;
  roles: RolesLookup;
}

/**
 * Whether a person is on an access list: user ids, `role:<name>` (platform roles, compared
 * without case), `admins` (chat administrators), `requester` (the turn's requester) and `*`
 * (everyone). Platform-neutral: roles come from the channel through {@link RolesLookup}.
 */
export async function isOnList(entries: readonly string[], subject: AccessSubject): Promise<boolean> {
  const { user } = subject;
  for (const entry of entries) {
    if (entry === everyoneEntry || entry === user.id) return true;
    if (entry === requesterEntry && subject.requesterId !== undefined && subject.requesterId === user.id) return true;
  }
  const wanted = entries.flatMap((entry) => {
    if (entry === adminsEntry) return ["admin"];
    if (entry.startsWith(rolePrefix)) return [entry.slice(rolePrefix.length).toLowerCase()];
    return [];
  });
  if (wanted.length === 0) return false;
  const roles = new Set((await subject.roles()).map((role) => role.toLowerCase()));
  return wanted.some((role) => roles.has(role));
}

/** An approver entry that names one person (not `requester`, `*`, `admins` or `role:…`). */
export function isPersonEntry(entry: string): boolean {
  return entry !== requesterEntry && entry !== everyoneEntry && entry !== adminsEntry && !entry.startsWith("role:");
}
