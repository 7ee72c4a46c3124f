/** An error answered by starpost, with the envelope's fields (like grammY's GrammyError). */
export class StarpostError extends Error {
  readonly error_code: number;
  readonly description: string;
  readonly parameters?: { retry_after?: number };
  constructor(
    readonly call: string,
    body: { error_code: number; description: string; parameters?: { retry_after?: number } },
  ) {
    super(`${call}: ${body.error_code} ${body.description}`);
    this.name = "StarpostError";
    this.error_code = body.error_code;
    this.description = body.description;
    if (body.parameters) this.parameters = body.parameters;
  }
}

export interface Transport {
  request<T>(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown, signal?: AbortSignal): Promise<T>;
}

/** What `new Starpost(...)` takes: the API root and the platform token that `starpost start` printed. */
export interface StarpostOptions {
  /** the API root (STARPOST_URL), e.g. `http://127.0.0.1:8081`: what bots get as their API root. */
  url: string;
  /** the platform token (STARPOST_PLATFORM_TOKEN). */
  platformToken: string;
}

/** The API root without trailing slashes, or a TypeError that names the mistake. */
export function checkOptions(opts: Partial<StarpostOptions> | undefined): StarpostOptions {
  const { url, platformToken } = opts ?? {};
  if (typeof url !== "string" || url === "")
    throw new TypeError(
      "Starpost: options.url is required: the API root `starpost start` printed (STARPOST_URL), e.g. http://127.0.0.1:8081",
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`Starpost: options.url must be an http(s) URL, got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new TypeError(`Starpost: options.url must be an http(s) URL, got ${JSON.stringify(url)}`);
  const root = url.replace(/\/+$/, "");
  if (/\/platform\/v1$/.test(root))
    throw new TypeError(
      `Starpost: options.url is the API root, without /platform/v1: use ${JSON.stringify(root.slice(0, -"/platform/v1".length))} (the client adds /platform/v1 itself)`,
    );
  if (typeof platformToken !== "string" || platformToken === "")
    throw new TypeError(
      "Starpost: options.platformToken is required: the platform token `starpost start` printed (STARPOST_PLATFORM_TOKEN)",
    );
  return { url: root, platformToken };
}

/** The platform API over fetch: bearer token, JSON bodies, the `{ok, result}` envelope unwrapped. */
export function transport({ url, platformToken }: StarpostOptions): Transport {
  const base = `${url}/platform/v1`;
  return {
    async request<T>(
      method: "GET" | "POST" | "PUT" | "DELETE",
      path: string,
      body?: unknown,
      signal?: AbortSignal,
    ): Promise<T> {
      const headers: Record<string, string> = { authorization: `Bearer ${platformToken}` };
      if (body !== undefined) headers["content-type"] = "application/json";
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
      const text = await res.text();
      let envelope: {
        ok?: boolean;
        result?: T;
        error_code?: number;
        description?: string;
        parameters?: { retry_after?: number };
      };
      try {
        envelope = JSON.parse(text);
      } catch {
        throw new StarpostError(`${method} ${path}`, { error_code: res.status, description: text.slice(0, 200) });
      }
      if (!envelope.ok) {
        throw new StarpostError(`${method} ${path}`, {
          error_code: envelope.error_code ?? res.status,
          description: envelope.description ?? "",
          ...(envelope.parameters ? { parameters: envelope.parameters } : {}),
        });
      }
      return envelope.result as T;
    },
  };
}
