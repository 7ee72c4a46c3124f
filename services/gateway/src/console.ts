import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import { Errors } from "@starpost/shared";
import { sendError } from "@starpost/http";

/**
 * The console (`/console`): static files read once at start from `console/` beside this module
 * (beside the bundle in dist/). It holds no secrets and calls only the public platform API.
 */
const FILES: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "console.js": "text/javascript; charset=utf-8",
  "api.js": "text/javascript; charset=utf-8",
  "render.js": "text/javascript; charset=utf-8",
  "console.css": "text/css; charset=utf-8",
};

const HEADERS = {
  "cache-control": "no-cache",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'self'; frame-ancestors 'none'",
};

export function registerConsole(app: FastifyInstance) {
  const files = new Map(
    Object.entries(FILES).map(([name, type]) => [
      name,
      { type, body: readFileSync(new URL(`./console/${name}`, import.meta.url)) },
    ]),
  );
  app.get("/console", async (_req, reply) => reply.redirect("/console/", 302));
  app.get<{ Params: { file?: string } }>("/console/:file", async (req, reply) => {
    const file = files.get(req.params.file || "index.html");
    if (!file) return sendError(reply, Errors.notFound());
    return reply.headers(HEADERS).type(file.type).send(file.body);
  });
}
