# One image for the four services. `pnpm run build` bundles each service into dist/<service>.mjs
# (every dependency inlined), and the image runs it with plain node; compose picks the service by
# its command (dist/<service>.mjs).
# BASE_IMAGE: any image with node >= 20.18.1 and a `node` user, as the official Node images have.
ARG BASE_IMAGE=node:24-bookworm-slim

FROM ${BASE_IMAGE} AS build
ENV COREPACK_ENABLE_DOWNLOAD_PROMPT=0
WORKDIR /src
# The whole workspace (see .dockerignore), so the lockfile matches its projects exactly.
COPY . .
# PREBUILT_DIST=true takes the context's dist/ as it is (built by `pnpm run build` beforehand), for
# machines whose build containers cannot reach the npm registry; see "Running with Docker Compose".
ARG PREBUILT_DIST=false
# A current corepack: older ones cannot verify the signatures of current pnpm releases.
RUN if [ "$PREBUILT_DIST" = true ]; then test -f dist/gateway.mjs; \
    else npm install --global --silent corepack@0.36.0 \
      && corepack pnpm install --frozen-lockfile --reporter=silent \
      && corepack pnpm run build; fi

FROM ${BASE_IMAGE}
# Every process of the image, and those `npm start`, the tests and the benchmarks start (they read
# these lines: packages/testkit/src/compose-file.ts, readImageEnv), so they are set here only.
# What each saves at idle is in docs/operations.md ("Memory").
# - GLIBC_TUNABLES: a fixed trim threshold (glibc's default value, which glibc otherwise raises
#   after the first large free) hands back the memory V8 used to compile the bundle at start.
ENV NODE_ENV=production
ENV GLIBC_TUNABLES="glibc.malloc.trim_threshold=131072"
WORKDIR /app
COPY --from=build /src/dist ./dist
USER node
EXPOSE 8081
HEALTHCHECK --interval=5s --timeout=5s --start-period=30s --retries=3 CMD ["node", "dist/healthcheck.mjs"]
ENTRYPOINT ["node"]
CMD ["dist/gateway.mjs"]
