export { buildOpsApp, type WorkerDeps } from "./app.ts";
