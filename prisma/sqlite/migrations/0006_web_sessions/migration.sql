-- Web console logins kept server-side (the cookie holds only a random id; its hash is the key).

-- CreateTable
CREATE TABLE "WebSession" (
    "idHash" TEXT NOT NULL PRIMARY KEY,
    "person" TEXT,
    "credential" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "WebSession_expiresAt_idx" ON "WebSession"("expiresAt");
