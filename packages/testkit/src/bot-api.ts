import { request } from "undici";

/** A reply as a test sees it: status, headers and the parsed JSON envelope. */
export interface Reply<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

/** Raw HTTP against the gateway; `body` is sent as JSON unless a string (with its own type). */
export async function http<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  /** contentType null: the body goes without a Content-Type header. */
  opts: { body?: unknown; headers?: Record<string, string>; contentType?: string | null } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | Buffer | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === "string" || Buffer.isBuffer(opts.body) ? opts.body : JSON.stringify(opts.body);
    if (opts.contentType !== null) headers["content-type"] = opts.contentType ?? "application/json";
  }
  const res = await request(`${baseUrl}${path}`, { method: method as "POST", headers, body });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.statusCode, headers: res.headers, body: parsed as T };
}

/** The platform API as a test uses it. */
export class Platform {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  call<T = any>(method: string, path: string, body?: unknown) {
    return http<T>(this.baseUrl, method, `/platform/v1${path}`, {
      body,
      headers: { authorization: `Bearer ${this.token}` },
    });
  }

  /** Creates a bot with a unique username; returns the Bot API User plus its token. */
  async createBot(opts: { username?: string; first_name?: string; token?: string } = {}) {
    const username = opts.username ?? `t${Math.random().toString(36).slice(2, 12)}_bot`;
    const res = await this.call("POST", "/bots", { ...opts, username });
    if (res.status !== 200) throw new Error(`createBot failed: ${JSON.stringify(res.body)}`);
    return res.body.result as { id: number; username: string; first_name: string; token: string };
  }

  async putChat(
    botId: number,
    chat: { id: number; type: string; title?: string; username?: string; first_name?: string; last_name?: string },
  ) {
    const { id, ...rest } = chat;
    return this.call("PUT", `/bots/${botId}/chats/${id}`, rest);
  }

  async pushUpdate(botId: number, update: unknown) {
    return this.call("POST", `/bots/${botId}/updates`, update);
  }
}

/** Bot API calls for one bot, as JSON POSTs (other encodings: use `http`). */
export function botClient(baseUrl: string, token: string) {
  return <T = any>(method: string, params: Record<string, unknown> = {}) =>
    http<T>(baseUrl, "POST", `/bot${token}/${method}`, { body: params });
}

let seq = 0;
/** A user message payload for the platform API. */
export function userMessage(chatId: number, text: string, from = { id: chatId, is_bot: false, first_name: "Ann" }) {
  return {
    message: {
      message_id: ++seq,
      from,
      chat: { id: chatId, type: "private", first_name: from.first_name },
      date: Math.floor(Date.now() / 1000),
      text,
    },
  };
}
