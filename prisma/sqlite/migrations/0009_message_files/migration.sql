-- Files and images of inbound messages, stored with the message (bytes, or why refused).
ALTER TABLE "Message" ADD COLUMN "fileCount" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "MessageFile" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "messageId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "mediaType" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "bytes" BLOB,
    "refusal" TEXT
);

-- CreateIndex
CREATE UNIQUE INDEX "MessageFile_messageId_position_key" ON "MessageFile"("messageId", "position");
