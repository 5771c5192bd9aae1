/** Application flags (`GET /applications/@me`) that grant the message content intent. */
const gatewayMessageContent = 1 << 18;
const gatewayMessageContentLimited = 1 << 19;

/** Is the privileged message content intent enabled for the application? */
export function hasMessageContentIntent(applicationFlags: number): boolean {
  return (applicationFlags & (gatewayMessageContent | gatewayMessageContentLimited)) !== 0;
}

/** What to tell an operator whose bot lacks the message content intent. */
export const messageContentAdvice =
  "the Discord bot lacks the Message Content intent: it sees the text only of messages that mention it and of DMs. " +
  "Enable it at https://discord.com/developers/applications → your application → Bot → Privileged Gateway Intents → " +
  "Message Content Intent, then restart Roundtable.";
