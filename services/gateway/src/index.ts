export { buildApp, type GatewayDeps } from "./app.ts";
export { BotCache } from "./bot-cache.ts";
