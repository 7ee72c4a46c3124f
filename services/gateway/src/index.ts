export { buildApp, type GatewayDeps } from "./app.ts";
export { BotCache } from "./bot-cache.ts";
export { GATEWAY_METHODS } from "./methods.ts";
