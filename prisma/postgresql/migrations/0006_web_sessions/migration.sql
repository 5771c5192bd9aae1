-- Web console logins kept server-side (the cookie holds only a random id; its hash is the key).

-- CreateTable
CREATE TABLE "WebSession" (
    "idHash" TEXT NOT NULL,
    "person" TEXT,
    "credential" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WebSession_pkey" PRIMARY KEY ("idHash")
);

-- CreateIndex
CREATE INDEX "WebSession_expiresAt_idx" ON "WebSession"("expiresAt");
