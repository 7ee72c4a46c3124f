export { buildApp, type UpdatesDeps } from "./app.ts";
