import { pino, type Logger } from "pino";

export type { Logger };

/** Paths pino blanks out wherever they appear in a log object. */
const REDACT = [
  "token",
  "*.token",
  "secret_token",
  "*.secret_token",
  "params.secret_token",
  "req.headers.authorization",
  'req.headers["x-internal-token"]',
  'req.headers["x-platform-bot-api-secret-token"]',
  'req.headers["x-telegram-bot-api-secret-token"]',
  "headers.authorization",
  'headers["x-internal-token"]',
];

/**
 * Bot tokens travel in URL paths (`/bot<token>/...`): keep only the bot id. Query strings can carry
 * any parameter (a secret_token, say): never log them.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  const path = q === -1 ? url : `${url.slice(0, q)}?<redacted>`;
  return path.replace(/^\/bot([^/?]*)/i, (_m, token: string) => {
    const id = token.split(":")[0];
    return `/bot${id && /^\d+$/.test(id) ? id : ""}:<redacted>`;
  });
}

/** The one logger factory: JSON lines, pretty only on a terminal, secrets redacted. */
export function createLogger(service: string, level = "info"): Logger {
  const pretty = process.stdout.isTTY && process.env.NODE_ENV !== "production";
  return pino({
    name: service,
    level,
    redact: { paths: REDACT, censor: "<redacted>" },
    ...(pretty ? { transport: { target: "pino-pretty", options: { destination: 1 } } } : {}),
  });
}

/** fastify serializers that never print a token: URLs redacted, headers left out. */
export const requestSerializers = {
  req(req: { method: string; url: string; id?: string }) {
    return { method: req.method, url: redactUrl(req.url), id: req.id };
  },
};
