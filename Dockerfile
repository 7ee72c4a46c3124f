# One image for the four services; compose picks the service by its command (a main.ts path).
FROM node:24-bookworm-slim
ENV NODE_ENV=production COREPACK_ENABLE_DOWNLOAD_PROMPT=0
WORKDIR /app
# A current corepack: older ones cannot verify the signatures of current pnpm releases.
RUN npm install --global --silent corepack@latest && corepack enable
# The whole workspace (see .dockerignore), so the lockfile matches its projects exactly.
COPY . .
RUN pnpm install --frozen-lockfile --prod --filter "!@starpost/e2e" --filter "!@starpost/bench" --filter "!@starpost/testkit" \
  --filter "!@starpost/example-*" \
  && rm -rf e2e bench examples packages/testkit
USER node
ENTRYPOINT ["node", "--import", "tsx"]
CMD ["services/gateway/src/main.ts"]
