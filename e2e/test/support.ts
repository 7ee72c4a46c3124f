import { randomBytes } from "node:crypto";
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import {
  botClient,
  eventually,
  startTarget,
  userMessage,
  type Instance,
  type Platform,
  type ReceiverHost,
} from "@starpost/testkit";

/**
 * What every end-to-end file shares: the docker-compose.yml topology started as local OS processes
 * (gateway, updates, invoices and the compose file's webhook-worker replicas) on a private
 * redis-server, one per test file, or under `npm run test:compose` the containers of
 * `docker compose up` (see testkit's startTarget); each test creates its own bots on it.
 */
export interface E2E {
  mode: "processes" | "compose";
  /** every service process or container. */
  instances: Instance[];
  receiverHost: ReceiverHost;
  platform: Platform;
  /** the Bot API root the client libraries are pointed at (their one changed option). */
  apiRoot: string;
  /** every error or fatal line any service process logged (a library's normal habits cause none). */
  errorLines: string[];
  /** a raw JSON call, for reading the service's own state next to what a library saw. */
  call(token: string, method: string, params?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

export async function startE2E(): Promise<E2E> {
  const verbose = process.env.TEST_LOG_LEVEL === "debug";
  const errorLines: string[] = [];
  const target = await startTarget({
    env: { INTERNAL_TOKEN: `e2e-internal-${randomBytes(12).toString("hex")}`, LOG_LEVEL: verbose ? "debug" : "warn" },
    onLine: (name, line) => {
      const error = /"level":(50|60)/.test(line);
      if (error) errorLines.push(`[${name}] ${line}`);
      if (verbose || error) console.log(`[${name}] ${line}`);
    },
  });
  return {
    mode: target.mode,
    instances: target.instances,
    receiverHost: target.receiverHost,
    platform: target.platform,
    apiRoot: target.gatewayUrl,
    errorLines,
    async call(token, method, params = {}) {
      const res = await botClient(target.gatewayUrl, token)(method, params);
      if (!res.body?.ok) throw new Error(`${method} failed: ${JSON.stringify(res.body)}`);
      return res.body.result;
    },
    close: () => target.stop(),
  };
}

/**
 * For a test file: its stack, started before its tests and stopped after them. After each test the
 * test's cleanups run and no service may have logged an error during it; after the last test, once
 * every process has exited, no late error line either. The object is filled in before the tests run.
 */
export function useE2E(): E2E {
  const e2e = {} as E2E;
  beforeAll(async () => {
    Object.assign(e2e, await startE2E());
  });
  afterEach(async () => {
    await runCleanups();
    expect(e2e.errorLines.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    if (!e2e.close) return;
    await e2e.close();
    expect(e2e.errorLines).toEqual([]);
  });
  return e2e;
}

let nextUser = 7_000_000;

/** A fresh bot and a fresh user who has a private chat with it (a valid sendInvoice target). */
export async function botAndUser(e2e: E2E) {
  const bot = await e2e.platform.createBot();
  const id = ++nextUser;
  const user = { id, is_bot: false, first_name: `User${id}`, username: `user${id}` };
  const chat = await e2e.platform.putChat(bot.id, {
    id,
    type: "private",
    first_name: user.first_name,
    username: user.username,
  });
  if (chat.status !== 200) throw new Error(`putChat failed: ${JSON.stringify(chat.body)}`);
  return { bot, user };
}

/** Pushes updates through the platform API; their update ids. */
export async function push(e2e: E2E, botId: number, updates: unknown | unknown[]): Promise<number[]> {
  const res = await e2e.platform.pushUpdate(botId, updates);
  if (res.status !== 200) throw new Error(`push failed: ${JSON.stringify(res.body)}`);
  const results = (Array.isArray(res.body.result) ? res.body.result : [res.body.result]) as {
    update_id: number | null;
  }[];
  if (results.some((r) => r.update_id === null)) throw new Error(`update dropped: ${JSON.stringify(res.body)}`);
  return results.map((r) => r.update_id!);
}

/** A user's text message; a leading /command carries its bot_command entity, as real clients send it. */
export function textFrom(user: { id: number; first_name: string }, text: string) {
  const update = userMessage(user.id, text, { id: user.id, is_bot: false, first_name: user.first_name });
  const command = /^\/\w+/.exec(text);
  return command
    ? { message: { ...update.message, entities: [{ type: "bot_command", offset: 0, length: command[0].length }] } }
    : update;
}

let nextQuery = 1;
/** A press on an inline button under one of the bot's messages. */
export function buttonPress(user: { id: number; first_name: string }, data: string) {
  return {
    callback_query: {
      id: `${Date.now()}${nextQuery++}`,
      from: { id: user.id, is_bot: false, first_name: user.first_name },
      chat_instance: `ci${user.id}`,
      data,
    },
  };
}

/**
 * `user` pays an invoice message in the private chat `chatId` (default: the user's own); resolves
 * with the platform's verdict once the bot answered.
 */
export async function pay(
  e2e: E2E,
  botId: number,
  user: { id: number; first_name: string },
  messageId: number,
  chatId = user.id,
) {
  const res = await e2e.platform.call("POST", `/bots/${botId}/payments`, {
    chat_id: chatId,
    message_id: messageId,
    user,
  });
  if (res.status !== 200) throw new Error(`payment failed: ${JSON.stringify(res.body)}`);
  return res.body.result as
    | { status: "paid"; telegram_payment_charge_id: string }
    | { status: "declined"; error_message: string }
    | { status: "expired" };
}

/** Resolves once `check` holds (polled every 20 ms), else fails with `what`. */
export const until = (what: string | (() => string), check: () => boolean | Promise<boolean>, ms = 15_000) =>
  eventually(check, ms, what);

/** The addresses of a service's processes or containers. */
export const urlsOf = (e2e: E2E, service: string) =>
  e2e.instances.filter((p) => p.service === service).map((p) => p.url);

/** A library's webhook handler served by a real node:http server where the services reach this host (127.0.0.1 for processes). */
export async function serve(e2e: E2E, listener: (...args: Parameters<RequestListener>) => unknown) {
  // A library's handler may be async: a rejection answers 500 instead of going unhandled.
  const server = createServer((req, res) => {
    Promise.resolve(listener(req, res)).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, e2e.receiverHost.bind, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://${e2e.receiverHost.name}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export const STAR_PRICE = 25;

const cleanups: (() => unknown)[] = [];
/** Registers a bot or server to stop after the test even when it fails half-way (a bot left polling holds the stack's shutdown). */
export function onCleanup(stop: () => unknown) {
  cleanups.push(stop);
}
/** For afterEach: runs and forgets every registered cleanup, newest first, ignoring their errors. */
export async function runCleanups() {
  for (const stop of cleanups.splice(0).reverse()) {
    try {
      await stop();
    } catch {
      // already stopped
    }
  }
}
