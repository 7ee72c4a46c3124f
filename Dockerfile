# One image for the four services; compose picks the service by its command (a main.ts path).
FROM node:24-bookworm-slim
ENV NODE_ENV=production COREPACK_ENABLE_DOWNLOAD_PROMPT=0
WORKDIR /app
RUN corepack enable
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml tsconfig.base.json ./
COPY packages ./packages
COPY services ./services
RUN pnpm install --frozen-lockfile --prod --filter "./services/*" --filter "@starpost/shared"
USER node
ENTRYPOINT ["node", "--import", "tsx"]
CMD ["services/gateway/src/main.ts"]
