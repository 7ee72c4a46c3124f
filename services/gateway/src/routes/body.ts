import type { FastifyInstance, FastifyRequest } from "fastify";
import multipart from "@fastify/multipart";
import { BotApiError, Errors } from "@starpost/shared";

/** Parameters total at most 1 MiB, as in the official server. */
export const BODY_LIMIT = 1024 * 1024;

/** A parsed body or query: parameter name -> string (forms) or any JSON value (JSON bodies). */
export type Params = Record<string, unknown>;

/** Any JSON value: Bot API calls need an object (checked by the route), platform batches an array. */
function parseJson(raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    throw Errors.badRequestBody();
  }
}

function parseForm(raw: string): Params {
  return Object.fromEntries(new URLSearchParams(raw));
}

/** Parses a non-multipart body by its content type; any other type is ignored like an empty body. */
export function parseBody(contentType: string | undefined, raw: string): unknown {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/json") return parseJson(raw);
  if (type === "application/x-www-form-urlencoded") return parseForm(raw);
  return {};
}

/**
 * Registers the body parsers: JSON and forms as text (parsed by `parseBody`, which turns every
 * failure into a Bot API error), multipart with files kept as a marker, anything else ignored.
 */
export async function registerBodyParsers(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  // An empty `Content-Type:` header says nothing about the body: treat it like no header at all.
  app.addHook("onRequest", async (req) => {
    if (req.headers["content-type"]?.trim() === "") delete req.headers["content-type"];
  });
  const asText = (req: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void) => {
    try {
      done(null, parseBody(req.headers["content-type"], body));
    } catch (err) {
      done(err as BotApiError);
    }
  };
  app.addContentTypeParser(["application/json", "application/x-www-form-urlencoded"], { parseAs: "string" }, asText);
  await app.register(multipart, {
    // Files (setWebhook's certificate) are accepted and ignored: each becomes the marker `true`.
    attachFieldsToBody: "keyValues",
    onFile: async (part) => {
      part.file.resume();
      (part as unknown as { value: unknown }).value = true;
    },
    limits: { fileSize: BODY_LIMIT, fieldSize: BODY_LIMIT, fields: 1000, files: 10, parts: 1010 },
  });
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, _body, done) => done(null, {}));
}

/** Reads the body of a GET request, which fastify does not parse (the official server does). */
export async function readGetBody(req: FastifyRequest): Promise<unknown> {
  const length = Number(req.headers["content-length"] ?? 0);
  if (!(length > 0) && req.headers["transfer-encoding"] === undefined) return {};
  if (length > BODY_LIMIT) throw Errors.tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.raw) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) throw Errors.tooLarge();
    chunks.push(chunk as Buffer);
  }
  return parseBody(req.headers["content-type"], Buffer.concat(chunks).toString("utf8"));
}
