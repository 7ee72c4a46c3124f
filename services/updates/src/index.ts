export { buildApp, type UpdatesDeps } from "./app.ts";
export { WEBHOOK_METHODS } from "./webhook/methods.ts";
