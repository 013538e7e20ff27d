# syntax=docker/dockerfile:1
# The helpdesk service: `docker build -t helpdesk .` (docs/operations.md, "Docker").

# Build: every dependency (TypeScript included), compile, then drop the dev dependencies.
FROM node:20-slim AS build
WORKDIR /app
# Manifests first, so the install is cached until a dependency changes. Scripts are skipped here: `prepare` would
# compile sources not copied yet.
COPY package.json package-lock.json .npmrc ./
COPY packages/schedule/package.json packages/schedule/
COPY packages/domain/package.json packages/domain/
COPY apps/http/package.json apps/http/
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY packages/schedule/tsconfig.json packages/schedule/
COPY packages/schedule/src packages/schedule/src
COPY packages/domain/tsconfig.json packages/domain/
COPY packages/domain/src packages/domain/src
COPY apps/http/tsconfig.json apps/http/
COPY apps/http/src apps/http/src
COPY apps/http/bin apps/http/bin
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# Runtime: the compiled code and the production dependencies only, run as the unprivileged `node` user.
FROM node:20-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
# Owned by root and read-only to the service; only DATA_DIR is writable.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/packages/schedule/package.json packages/schedule/
COPY --from=build /app/packages/schedule/dist packages/schedule/dist
COPY --from=build /app/packages/domain/package.json packages/domain/
COPY --from=build /app/packages/domain/dist packages/domain/dist
COPY --from=build /app/apps/http/package.json apps/http/
COPY --from=build /app/apps/http/bin apps/http/bin
COPY --from=build /app/apps/http/dist apps/http/dist
# Uploaded files (blobs/), .eml files when SMTP_URL is unset (outbox/), and the embedded database without DATABASE_URL.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 3000
# Node's own fetch: the slim image has no curl. /healthz answers while the process runs (/readyz also asks the database).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node itself is the process that receives SIGTERM (`docker stop`): it stops within SHUTDOWN_TIMEOUT (10 s) plus 5 s,
# so give `docker stop` more than its default 10 s (`--stop-timeout 20`, compose's stop_grace_period).
CMD ["node", "apps/http/bin/helpdesk.js", "serve"]
