export * from "./bot-api.ts";
export * from "./redis-server.ts";
export * from "./stack.ts";
