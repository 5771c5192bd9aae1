-- /stop: who stopped a turn (the marker every step of the turn checks first).
ALTER TABLE "Turn" ADD COLUMN "stoppedById" TEXT;
ALTER TABLE "Turn" ADD COLUMN "stoppedByName" TEXT;
