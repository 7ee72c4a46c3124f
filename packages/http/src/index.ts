/**
 * The HTTP edge every service shares: the fastify server and its error handler, the internal
 * token guard, the method and platform tables' routes, health and metrics, the client of internal
 * calls and the replica wait. It runs requests; the contract it speaks is @starpost/shared.
 */
export * from "./http-server.ts";
export * from "./internal-calls.ts";
export * from "./platform-edge.ts";
export * from "./replica-wait.ts";
export * from "./request-logger.ts";
export * from "./service-app.ts";
export * from "./service-client.ts";
export * from "./undici.ts";
