export { buildOpsApp, buildWorker, type DeliveryWorker, type DeliveryWorkerDeps, type WorkerDeps } from "./app.ts";
