import { join } from "node:path";

/**
 * What both ends of an internal call agree on: the services' side (service-app.ts, http-server.ts)
 * and the callers' (service-client.ts). Kept apart from the client so a service that only answers
 * internal calls does not load undici, which only the client needs.
 */

export const INTERNAL_TOKEN_HEADER = "x-internal-token";

/** The Unix socket a service also listens on when INTERNAL_SOCKET_DIR is set. */
export const internalSocket = (dir: string, service: string) => join(dir, `${service}.sock`);
