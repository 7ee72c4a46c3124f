export * from "./bot-api.ts";
export * from "./redis-server.ts";
export * from "./stack.ts";
export * from "./compose-file.ts";
export * from "./compose-stack.ts";
export * from "./webhook-receiver.ts";
export * from "./wait.ts";
export * from "./child-processes.ts";
