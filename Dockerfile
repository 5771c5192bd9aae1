# syntax=docker/dockerfile:1

# Build: install dependencies (their install scripts fetch the `node` package's binary and
# generate the Prisma clients), compile to dist/, then drop the dev tools.
FROM node:24-slim AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run generate && npm run build && npm prune --omit=dev

# Run: the same files, owned by root and read-only to the service, which runs as `node`.
FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production PORT=8080 NPM_CONFIG_UPDATE_NOTIFIER=false
# glibc's malloc keeps one arena per thread that allocates; two are plenty for one Node event
# loop and save a few MiB (README, "Performance").
ENV MALLOC_ARENA_MAX=2
COPY --from=build /app /app
RUN mkdir -p /app/data /app/worlds && chown node:node /app/data /app/worlds
USER node
EXPOSE 8080
VOLUME ["/app/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `start` applies pending migrations, then serves; SIGTERM stops it gracefully.
# Node runs the compiled and bundled JavaScript (dist/bundle/, no TypeScript loader), as PID 1 so it
# receives the signal.
# The V8 flags keep memory near what is live (README, "Performance").
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=30", "dist/bundle/main.js", "start"]
