-- Apps installed in workspaces through "Add to Slack", bot tokens sealed (docs/slack.md).
-- CreateTable
CREATE TABLE "ChannelInstallation" (
    "platform" TEXT NOT NULL,
    "workspace" TEXT NOT NULL,
    "botId" TEXT NOT NULL,
    "botUserId" TEXT NOT NULL,
    "scopes" TEXT NOT NULL,
    "sealedToken" TEXT NOT NULL,
    "installedBy" TEXT,
    "installedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ChannelInstallation_pkey" PRIMARY KEY ("platform","workspace")
);
