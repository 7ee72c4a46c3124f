export { buildApp, type GatewayDeps } from "./app.ts";
