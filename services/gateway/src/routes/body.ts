import { unzipSync } from "node:zlib";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { emptyParams, Errors, ParamBudget, readFormParams, readJsonParams, type RawParams } from "@starpost/shared";
import { multipartBoundary, readMultipartParams } from "./multipart.ts";
import { bodyStream } from "../client-limits.ts";

/** Parameters total at most 1 MiB, as in the official server. */
export const BODY_LIMIT = 1024 * 1024;
/** The official server reads request headers up to 256 KiB: a GET's query string can be that long. */
export const MAX_HEADER_SIZE = 256 * 1024;

/**
 * The gateway reads every body as bytes; what they mean is decided below (Bot API calls) or by
 * the platform routes (JSON only). fastify still enforces the size limit (413).
 */
export function registerBodyParsers(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  // fastify refuses Content-Type values it cannot parse ("weird", "a, b") before any route runs;
  // the official server only looks for substrings in it. So the gateway keeps the header for
  // itself and lets fastify see plain bytes.
  app.addHook("onRequest", (req, _reply, done) => {
    const type = req.headers["content-type"];
    if (type !== undefined) {
      contentTypes.set(req.raw, type);
      req.headers["content-type"] = "application/octet-stream";
    }
    done();
  });
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
}

const contentTypes = new WeakMap<FastifyRequest["raw"], string>();

/** The request's Content-Type as sent ("" when none, or empty). */
const contentTypeOf = (req: FastifyRequest) => (contentTypes.get(req.raw) ?? "").trim();

/** The body's bytes: fastify reads POST bodies; a GET's body (the official server reads those too) is read here. */
export async function readBody(req: FastifyRequest): Promise<Buffer> {
  if (Buffer.isBuffer(req.body)) return req.body;
  if (req.method !== "GET" && req.method !== "HEAD") return Buffer.alloc(0);
  const length = Number(req.headers["content-length"] ?? 0);
  if (!(length > 0) && req.headers["transfer-encoding"] === undefined) return Buffer.alloc(0);
  if (length > BODY_LIMIT) throw Errors.tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of bodyStream(req)) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) throw Errors.tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** `Content-Encoding: gzip` or `deflate` is decoded (zlib or gzip framing, as the reference's inflate detects); any other is 415. */
function decodeBody(body: Buffer, encoding: string | undefined): Buffer {
  const coding = (encoding ?? "").trim().toLowerCase();
  if (coding === "") return body;
  if (coding !== "gzip" && coding !== "deflate") throw Errors.contentEncodingUnsupported();
  try {
    return unzipSync(body, { maxOutputLength: BODY_LIMIT });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw Errors.tooLarge();
    throw Errors.contentEncodingBroken((err as { errno?: number }).errno ?? -3);
  }
}

/**
 * A Bot API call's parameters, the official server's way: the query string first, then the body
 * (multipart, urlencoded or JSON, told apart by a substring of the Content-Type like the
 * reference); the first occurrence of a name wins. A body that cannot be parsed adds nothing and
 * the method runs without it; only the framing of a multipart body, an unknown content coding and
 * a body too large are refused, and so are more than `maxParams` parameters (starpost's bound:
 * see ParamBudget).
 */
export async function readBotParams(req: FastifyRequest, maxParams: number): Promise<RawParams> {
  const params = emptyParams();
  const budget = new ParamBudget(maxParams);
  const q = req.url.indexOf("?");
  if (q >= 0) readFormParams(params, req.url.slice(q + 1), budget);
  const raw = await readBody(req);
  if (raw.length === 0) return params;
  const body = decodeBody(raw, req.headers["content-encoding"]);
  const contentType = contentTypeOf(req);
  const type = contentType.toLowerCase();
  if (type.includes("multipart/form-data")) readMultipartParams(params, body, multipartBoundary(contentType), budget);
  else if (type.includes("application/x-www-form-urlencoded")) readFormParams(params, body, budget);
  else if (type.includes("application/json")) readJsonParams(params, body.toString("utf8"), budget);
  return params;
}

/**
 * A platform API body: starpost's own API takes JSON only and says what is wrong with anything
 * else. Empty is no body; the text is forwarded as it came.
 */
export function readPlatformBody(req: FastifyRequest): string | undefined {
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (body.length === 0) return undefined;
  const type = contentTypeOf(req).split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") throw Errors.platformBodyContentType(type);
  if (req.headers["content-encoding"] !== undefined) throw Errors.platformBodyEncoding();
  const text = body.toString("utf8");
  try {
    JSON.parse(text);
  } catch (err) {
    throw Errors.platformBodyJson((err as Error).message);
  }
  return text;
}
