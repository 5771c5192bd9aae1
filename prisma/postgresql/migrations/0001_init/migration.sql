-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "Chat" (
    "key" TEXT NOT NULL,
    "world" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "agentTurnsSinceHuman" INTEGER NOT NULL DEFAULT 0,
    "sessionEpoch" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Chat_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Event" (
    "seq" SERIAL NOT NULL,
    "chatKey" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Event_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "Message" (
    "seq" SERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "chatKey" TEXT NOT NULL,
    "authorKind" TEXT NOT NULL,
    "authorId" TEXT NOT NULL,
    "authorName" TEXT NOT NULL,
    "authorHandle" TEXT,
    "text" TEXT NOT NULL,
    "platformMessageId" TEXT,
    "replyToId" TEXT,
    "turnId" TEXT,
    "provider" TEXT,
    "model" TEXT,
    "providerFields" TEXT,
    "raw" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Message_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "ToolCall" (
    "seq" SERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "chatKey" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "providerCallId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "arguments" TEXT NOT NULL,
    "provider" TEXT,
    "providerFields" TEXT,
    "state" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ToolCall_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "ToolResult" (
    "seq" SERIAL NOT NULL,
    "toolCallId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ToolResult_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "Approval" (
    "id" TEXT NOT NULL,
    "shortId" TEXT NOT NULL,
    "chatKey" TEXT NOT NULL,
    "world" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "toolCallId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "requestedFor" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "decidedById" TEXT,
    "decidedByName" TEXT,
    "choice" TEXT,
    "decidedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Approval_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApprovalChange" (
    "seq" SERIAL NOT NULL,
    "approvalId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "actorId" TEXT NOT NULL,
    "actorName" TEXT NOT NULL,
    "note" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApprovalChange_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "SessionGrant" (
    "id" TEXT NOT NULL,
    "chatKey" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "argsHash" TEXT NOT NULL,
    "sessionEpoch" INTEGER NOT NULL,
    "grantedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SessionGrant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Turn" (
    "id" TEXT NOT NULL,
    "chatKey" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "triggerMessageId" TEXT NOT NULL,
    "startedById" TEXT NOT NULL,
    "step" INTEGER NOT NULL DEFAULT 0,
    "deadlineAt" TIMESTAMP(3) NOT NULL,
    "endReason" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "Turn_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InboundKey" (
    "key" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "InboundKey_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "OutboundMessage" (
    "seq" SERIAL NOT NULL,
    "chatKey" TEXT NOT NULL,
    "refKind" TEXT NOT NULL,
    "refId" TEXT NOT NULL,
    "part" INTEGER NOT NULL DEFAULT 0,
    "platformMessageId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OutboundMessage_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "Job" (
    "seq" SERIAL NOT NULL,
    "key" TEXT NOT NULL,
    "queue" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "runAt" TIMESTAMP(3) NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lockedBy" TEXT,
    "lockedAt" TIMESTAMP(3),
    "lastError" TEXT,
    "finishedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Job_pkey" PRIMARY KEY ("seq")
);

-- CreateIndex
CREATE INDEX "Event_chatKey_seq_idx" ON "Event"("chatKey", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "Message_id_key" ON "Message"("id");

-- CreateIndex
CREATE INDEX "Message_chatKey_seq_idx" ON "Message"("chatKey", "seq");

-- CreateIndex
CREATE INDEX "Message_chatKey_platformMessageId_idx" ON "Message"("chatKey", "platformMessageId");

-- CreateIndex
CREATE UNIQUE INDEX "ToolCall_id_key" ON "ToolCall"("id");

-- CreateIndex
CREATE INDEX "ToolCall_turnId_idx" ON "ToolCall"("turnId");

-- CreateIndex
CREATE INDEX "ToolCall_chatKey_agent_idx" ON "ToolCall"("chatKey", "agent");

-- CreateIndex
CREATE UNIQUE INDEX "ToolResult_toolCallId_key" ON "ToolResult"("toolCallId");

-- CreateIndex
CREATE UNIQUE INDEX "Approval_toolCallId_key" ON "Approval"("toolCallId");

-- CreateIndex
CREATE INDEX "Approval_state_expiresAt_idx" ON "Approval"("state", "expiresAt");

-- CreateIndex
CREATE INDEX "Approval_turnId_idx" ON "Approval"("turnId");

-- CreateIndex
CREATE INDEX "Approval_chatKey_state_idx" ON "Approval"("chatKey", "state");

-- CreateIndex
CREATE UNIQUE INDEX "Approval_chatKey_shortId_key" ON "Approval"("chatKey", "shortId");

-- CreateIndex
CREATE INDEX "ApprovalChange_approvalId_idx" ON "ApprovalChange"("approvalId");

-- CreateIndex
CREATE UNIQUE INDEX "SessionGrant_chatKey_agent_tool_argsHash_sessionEpoch_key" ON "SessionGrant"("chatKey", "agent", "tool", "argsHash", "sessionEpoch");

-- CreateIndex
CREATE INDEX "Turn_chatKey_state_idx" ON "Turn"("chatKey", "state");

-- CreateIndex
CREATE INDEX "OutboundMessage_chatKey_platformMessageId_idx" ON "OutboundMessage"("chatKey", "platformMessageId");

-- CreateIndex
CREATE UNIQUE INDEX "OutboundMessage_refKind_refId_part_key" ON "OutboundMessage"("refKind", "refId", "part");

-- CreateIndex
CREATE UNIQUE INDEX "Job_key_key" ON "Job"("key");

-- CreateIndex
CREATE INDEX "Job_state_runAt_idx" ON "Job"("state", "runAt");

-- CreateIndex
CREATE INDEX "Job_queue_state_idx" ON "Job"("queue", "state");

-- CreateIndex
CREATE INDEX "Job_state_finishedAt_idx" ON "Job"("state", "finishedAt");

