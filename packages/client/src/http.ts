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

/** The platform API over fetch: bearer token, JSON bodies, the `{ok, result}` envelope unwrapped. */
export function transport(url: string, platformToken: string): Transport {
  const base = `${url.replace(/\/+$/, "")}/platform/v1`;
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
