# The VET Reporting Service: one image, two entry points (docs/operations.md, "Container image").
#
#   docker build -t vetrs .
#   docker run -e DATABASE_URL=... -e AUTH_SIGNING_KEY_FILE=/run/secrets/signing-key.pem ... -p 8080:8080 vetrs
#                                                           API process (src/main.ts)
#   docker run --no-healthcheck -e DATABASE_URL=... vetrs src/worker.ts     worker process
#   docker run --rm -e DATABASE_URL=... vetrs src/cli/main.ts migrate       migrations, as a release step
#   docker run --rm -e DATABASE_URL=... vetrs src/cli/main.ts clients add sms-vendor-a --rto 91234 --scopes vet:report,vet:read
#
# There is no build step: Node.js 24 runs the TypeScript sources directly (type stripping).
# Pin the base image by digest in a real pipeline (node:24-bookworm-slim@sha256:...).
FROM node:24-bookworm-slim

ENV NODE_ENV=production \
    SERVICE_MODE=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    NODE_COMPILE_CACHE=/tmp/node-compile-cache \
    NODE_OPTIONS=--max-semi-space-size=16 \
    MALLOC_MMAP_THRESHOLD_=131072

# Memory (docs/operations.md, "Memory"): V8's young generation at most 2 x 16 MB (it grows to 2 x 64 MB
# under a bulk upload, and keeps it), and every block of 128 KiB or more in a mapping of its own that is
# given back when freed. The old generation grown by at most half its live size after a full collection
# (--heap-growing-percent=50, in ENTRYPOINT: Node.js refuses it in NODE_OPTIONS). No heap limit: it would
# also bound the NAT import's worker thread. The embedded database's parser kept from V8's optimising
# compiler, 600 MB at every start (--experimental-wasm-compilation-hints --no-wasm-dynamic-tiering, in
# ENTRYPOINT too; src/platform/db/pglite-module.ts). src/service-memory.mjs holds the same list for npm start.

WORKDIR /app

# Dependencies first, so that a change to the sources reuses this layer. npm ci needs the manifest of
# every workspace named in package.json. The postinstall step runs patch-package, which applies
# patches/ (pg-boss); patch-package is a runtime dependency, so --omit=dev keeps it.
COPY package.json package-lock.json ./
COPY patches ./patches
COPY packages/client/package.json packages/client/
COPY packages/cli/package.json packages/cli/
COPY packages/avetmiss/package.json packages/avetmiss/
COPY tools/openapi-codegen/package.json tools/openapi-codegen/
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# The service itself, and the sources of the NAT library (@vetrs/avetmiss), which the NAT import
# (src/modules/nat-bridge) runs by path as the service's own. Files stay owned by root: the process
# cannot change its own code.
COPY src ./src
COPY packages/avetmiss/src ./packages/avetmiss/src

# Runs as the image's unprivileged user, never as root.
USER node
EXPOSE 8080

# Liveness of the API process (its readiness, /health/ready, is for the load balancer). The worker
# process has no HTTP listener: run it with --no-healthcheck (compose: healthcheck: {disable: true}).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# node itself, not npm: SIGTERM reaches the service, which shuts down gracefully (docs/operations.md).
ENTRYPOINT ["node", "--heap-growing-percent=50", "--experimental-wasm-compilation-hints", "--no-wasm-dynamic-tiering", "src/start.mjs"]
CMD ["src/main.ts"]
