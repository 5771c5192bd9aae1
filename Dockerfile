# syntax=docker/dockerfile:1
# Kept simple on purpose: .ci/run replays the build stage without Docker
# (scripts/replay-dockerfile.mjs: each COPY into an empty directory, each RUN there, then the
# final stage's CMD and HEALTHCHECK), so a change here is checked in CI.

# Build: the sources first, then `npm install`, whose postinstall generates the Prisma clients
# and builds dist/ (scripts/build.mjs); then the dev tools are dropped.
FROM node:24-slim AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
COPY . .
RUN npm install --no-audit --no-fund
RUN npm prune --omit=dev

# Run: the same files, owned by root and read-only to the service, which runs as `node`.
FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production PORT=8080 NPM_CONFIG_UPDATE_NOTIFIER=false
# glibc's malloc keeps one arena per thread that allocates; two are plenty for one Node event
# loop and save a few MiB (docs/operations.md, "Performance").
ENV MALLOC_ARENA_MAX=2
COPY --from=build /app /app
# data/ (the SQLite default) and config/ (an optional roundtable.yaml, docker-compose.yml) are
# the only places the service reads or writes besides its own files.
RUN mkdir -p /app/data /app/worlds /app/config && chown node:node /app/data /app/worlds
USER node
EXPOSE 8080
VOLUME ["/app/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `start` applies pending migrations, then serves; SIGTERM stops it gracefully.
# Node runs the compiled and bundled JavaScript (dist/bundle/, no TypeScript loader), as PID 1 so it
# receives the signal.
# The V8 flags keep memory near what is live (docs/operations.md, "Performance").
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=30", "dist/bundle/main.js", "start"]
