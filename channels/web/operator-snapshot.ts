/**
 * What the operator view shows, gathered by the app from the config, the store and the channels.
 * Plain data: the web channel only renders it.
 */
export interface OperatorSnapshot {
  generatedAt: Date;
  worlds: OperatorWorld[];
  channels: OperatorChannel[];
  chats: OperatorChat[];
  pendingApprovals: OperatorApproval[];
  approvalHistory: OperatorApproval[];
  /** Usage against the worlds' limits; empty when the store keeps no usage. */
  usage: OperatorUsage[];
  errors: OperatorError[];
}

export interface OperatorWorld {
  name: string;
  defaultAgent?: string;
  agents: { name: string; displayName: string; avatarUrl?: string; provider: string; model: string }[];
}

export interface OperatorChannel {
  platform: string;
  connected: boolean;
  lastReceivedAt?: Date;
}

export interface OperatorChat {
  chatKey: string;
  platform: string;
  world?: string;
  /** Link to the web chat page when the chat is the web console's. */
  webPath?: string;
  lastMessages: { author: string; text: string; at: Date }[];
}

export interface OperatorApproval {
  approvalId: string;
  shortId: string;
  chatKey: string;
  world: string;
  agent: string;
  tool: string;
  argumentsJson: string;
  state: string;
  /** Who may decide, in words (`requester (ana)`, `U0123, role:Ops`). */
  deciders: string;
  requestedFor: string;
  createdAt: Date;
  expiresAt: Date;
  decidedBy?: string;
  choice?: string;
  decidedAt?: Date;
  /** The kind of the call's result once it has one (`ok`, `error`, `denied`, `expired`, `skipped`, …). */
  resultKind?: string;
}

export interface OperatorUsage {
  world: string;
  agent?: string;
  day: string;
  tokens: number;
  costUsd?: number;
  /** The limit in words (`100000 tokens/day`), when one is set. */
  limit?: string;
}

export interface OperatorError {
  chatKey: string;
  text: string;
  at: Date;
}

/** The app's side of the operator view. */
export interface OperatorSource {
  snapshot(): Promise<OperatorSnapshot>;
}
