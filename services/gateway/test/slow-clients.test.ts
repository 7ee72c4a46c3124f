import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, http, metric, startStack, type TestStack } from "@starpost/testkit";

/**
 * What one client may take from the gateway: the time to send a request (headers, then the whole
 * body, however it trickles), connections per address, parameters per call, calls in progress per
 * bot. The limits here are small so the tests wait little; the answers are the same at the defaults.
 */

const HEADERS_TIMEOUT_MS = 600;
const REQUEST_TIMEOUT_MS = 2_500;
const PER_ADDRESS = 16;
const BOT_MAX_ACTIVE = 2;
const READ_BYTES_PER_S = 64 * 1024;

let stack: TestStack;
let bot: { id: number; token: string };
let url: URL;
const sockets: Socket[] = [];

beforeAll(async () => {
  stack = await startStack({
    gatewayLimits: {
      GATEWAY_HEADERS_TIMEOUT_MS: HEADERS_TIMEOUT_MS,
      GATEWAY_REQUEST_TIMEOUT_MS: REQUEST_TIMEOUT_MS,
      GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: PER_ADDRESS,
      GATEWAY_BOT_MAX_ACTIVE_REQUESTS: BOT_MAX_ACTIVE,
      GATEWAY_BOT_READ_BYTES_PER_S: READ_BYTES_PER_S,
    },
  });
  bot = await stack.platform.createBot({ first_name: "Slow" });
  url = new URL(stack.gatewayUrl);
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await stack.close();
});

/** A raw connection to the gateway (from `localAddress`), with what it received and whether it closed. */
async function open(localAddress = "127.0.0.1") {
  const socket = connect({ host: url.hostname, port: Number(url.port), localAddress });
  sockets.push(socket);
  const state = { received: "", closed: false, closedAt: 0 };
  socket.on("data", (d) => (state.received += d.toString("latin1")));
  socket.on("error", () => undefined);
  socket.on("close", () => {
    state.closed = true;
    state.closedAt = performance.now();
  });
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  return { socket, state };
}

/** Writes one byte every `everyMs` until the socket closes. */
function trickle(socket: Socket, everyMs: number) {
  const timer = setInterval(() => (socket.writable ? socket.write("a") : clearInterval(timer)), everyMs);
  socket.once("close", () => clearInterval(timer));
}

const getMeRequest = (token: string) => `GET /bot${token}/getMe HTTP/1.1\r\nHost: gateway\r\n\r\n`;

describe("slow requests", () => {
  it("cuts a request whose body trickles in, however often a byte arrives, with 408", async () => {
    const before = await metric(stack.gatewayUrl, "starpost_gateway_slow_clients_cut_total");
    const { socket, state } = await open();
    const started = performance.now();
    socket.write(
      `POST /bot${bot.token}/getMe HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n`,
    );
    trickle(socket, 100);
    await expect.poll(() => state.closed, { timeout: 10_000 }).toBe(true);
    expect(state.closedAt - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(state.received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(state.received).toContain('{"ok":false,"error_code":408,"description":"Request Timeout"}');
    expect(await metric(stack.gatewayUrl, "starpost_gateway_slow_clients_cut_total")).toBe(before + 1);
  });

  it("cuts a request whose headers trickle in, and a connection that sends nothing", async () => {
    const trickling = await open();
    trickling.socket.write(`GET /bot${bot.token}/getMe HTTP/1.1\r\nX-Slow: `);
    trickle(trickling.socket, 100);
    const silent = await open();
    await expect.poll(() => trickling.state.closed && silent.state.closed, { timeout: 10_000 }).toBe(true);
    expect(trickling.state.received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("holds a long poll longer than the request timeout and answers it normally", async () => {
    const call = botClient(stack.gatewayUrl, bot.token);
    const started = performance.now();
    const answer = await call("getUpdates", { timeout: 3 });
    expect(answer).toMatchObject({ status: 200, body: { ok: true, result: [] } });
    expect(performance.now() - started).toBeGreaterThan(REQUEST_TIMEOUT_MS);
  });

  it("leaves an idle keep-alive connection to its own timeout: the next request on it is answered", async () => {
    const { socket, state } = await open();
    socket.write(getMeRequest(bot.token));
    await expect.poll(() => state.received.includes('"ok":true')).toBe(true);
    // Idle while a slow request opened after it runs out of time: idle is not a request in progress.
    const seen = state.received.length;
    const slow = await open();
    slow.socket.write(`POST /bot${bot.token}/getMe HTTP/1.1\r\nHost: gateway\r\nContent-Length: 1000\r\n\r\n`);
    trickle(slow.socket, 100);
    await expect.poll(() => slow.state.closed, { timeout: 10_000 }).toBe(true);
    expect(state.closed).toBe(false);
    socket.write(getMeRequest(bot.token));
    await expect.poll(() => state.received.slice(seen).includes('"ok":true')).toBe(true);
    socket.destroy();
  });
});

describe("connections per address", () => {
  it("closes a connection beyond the bound at once while other addresses are served", async () => {
    const before = await metric(stack.gatewayUrl, "starpost_gateway_connections_refused_total");
    // Keep-alive connections that each made a call: idle, not slow, so no timeout cuts them.
    // From an address of its own: the test's other calls come from 127.0.0.1.
    const address = "127.0.0.3";
    const held: Awaited<ReturnType<typeof open>>[] = [];
    for (let i = 0; i < PER_ADDRESS; i++) {
      const c = await open(address);
      c.socket.write(getMeRequest(bot.token));
      held.push(c);
    }
    await expect.poll(() => held.every((c) => c.state.received.includes('"ok":true'))).toBe(true);

    const over = await open(address);
    over.socket.write(getMeRequest(bot.token));
    await expect.poll(() => over.state.closed).toBe(true);
    expect(over.state.received).toBe("");
    expect(await metric(stack.gatewayUrl, "starpost_gateway_connections_refused_total")).toBe(before + 1);

    // Another address is served meanwhile, and so is this one once a connection of it is gone.
    expect(await http(stack.gatewayUrl, "GET", `/bot${bot.token}/getMe`)).toMatchObject({ status: 200 });
    held[0]!.socket.destroy();
    await expect
      .poll(async () => {
        const again = await open(address);
        again.socket.write(getMeRequest(bot.token));
        await expect.poll(() => again.state.closed || again.state.received.includes("\r\n\r\n")).toBe(true);
        again.socket.destroy();
        return again.state.received.includes('"ok":true');
      })
      .toBe(true);
    for (const c of held) c.socket.destroy();
  });
});

describe("expensive calls", () => {
  const form = (n: number, extra = "") =>
    Array.from({ length: n }, (_, i) => `p${i}=${i}`).join("&") + (extra ? `&${extra}` : "");

  it("refuses a call with more than GATEWAY_MAX_PARAMS parameters with 413, and applies nothing of it", async () => {
    const chatId = 5_550_001;
    await stack.platform.putChat(bot.id, { id: chatId, type: "private", first_name: "Ann" });
    const tooMany = {
      status: 413,
      body: { ok: false, error_code: 413, description: "Request Entity Too Large: too many parameters" },
    };
    const urlencoded = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/sendMessage`, {
      body: form(1_000, `chat_id=${chatId}&text=hi`),
      contentType: "application/x-www-form-urlencoded",
    });
    expect(urlencoded).toMatchObject(tooMany);
    const members = Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`p${i}`, i]));
    const json = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/sendMessage`, {
      body: { chat_id: chatId, text: "hi", ...members },
    });
    expect(json).toMatchObject(tooMany);
    const parts = Array.from(
      { length: 1_001 },
      (_, i) => `--b\r\nContent-Disposition: form-data; name="p${i}"\r\n\r\n${i}\r\n`,
    );
    const multipart = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/getMe`, {
      body: `${parts.join("")}--b--\r\n`,
      contentType: "multipart/form-data; boundary=b",
    });
    expect(multipart).toMatchObject(tooMany);
    // The query string counts too.
    expect(await http(stack.gatewayUrl, "GET", `/bot${bot.token}/getMe?${form(1_001)}`)).toMatchObject(tooMany);

    const history = await stack.platform.call("GET", `/bots/${bot.id}/chats/${chatId}/messages`);
    expect(history.body.result.messages).toEqual([]);
    // At the bound, the call runs.
    const atBound = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/sendMessage`, {
      body: form(998, `chat_id=${chatId}&text=hi`),
      contentType: "application/x-www-form-urlencoded",
    });
    expect(atBound).toMatchObject({ status: 200, body: { ok: true, result: { text: "hi" } } });
  });

  it("reads one bot's bodies at its share's pace, another bot's at its own", async () => {
    const heavy = await stack.platform.createBot({ first_name: "Heavy" });
    const other = await stack.platform.createBot({ first_name: "Light" });
    // Four bodies of half a share each: two fit the first second's burst, the others wait 0.5 and
    // 1 s (within half the request timeout, past which a body is refused).
    const big = `a=${"x".repeat(READ_BYTES_PER_S / 2 - 2)}`;
    const started = performance.now();
    const heavyCalls = Array.from({ length: 4 }, () =>
      http(stack.gatewayUrl, "POST", `/bot${heavy.token}/getMe`, {
        body: big,
        contentType: "application/x-www-form-urlencoded",
      }),
    );
    const light = await http(stack.gatewayUrl, "POST", `/bot${other.token}/getMe`, {
      body: "a=1",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(light).toMatchObject({ status: 200, body: { ok: true } });
    for (const answer of await Promise.all(heavyCalls)) expect(answer).toMatchObject({ status: 200 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("refuses a body whose turn would come past half the request timeout with 429, reading nothing", async () => {
    const heavy = await stack.platform.createBot({ first_name: "Heavier" });
    // The first body takes the burst; the next, three shares, would be read about 3 s later, past
    // half the request timeout (1.25 s).
    const first = await http(stack.gatewayUrl, "POST", `/bot${heavy.token}/getMe`, {
      body: `a=${"x".repeat(READ_BYTES_PER_S - 2)}`,
      contentType: "application/x-www-form-urlencoded",
    });
    expect(first).toMatchObject({ status: 200 });
    const refused = await http(stack.gatewayUrl, "POST", `/bot${heavy.token}/getMe`, {
      body: `a=${"x".repeat(READ_BYTES_PER_S * 3 - 2)}`,
      contentType: "application/x-www-form-urlencoded",
    });
    expect(refused).toMatchObject({
      status: 429,
      body: { ok: false, error_code: 429, parameters: { retry_after: expect.any(Number) } },
    });
    expect((refused.body as { parameters: { retry_after: number } }).parameters.retry_after).toBeGreaterThanOrEqual(1);
    // The refused body was not paid for: half a share more is read within the wait allowed (had
    // the three shares been paid, it would be refused too).
    const next = await http(stack.gatewayUrl, "POST", `/bot${heavy.token}/getMe`, {
      body: `a=${"x".repeat(READ_BYTES_PER_S / 2 - 2)}`,
      contentType: "application/x-www-form-urlencoded",
    });
    expect(next).toMatchObject({ status: 200 });
  });

  it("frees the active calls of pipelined requests whose connection died, answered or not", async () => {
    const bot2 = await stack.platform.createBot({ first_name: "Pipelined" });
    const holdNext = async (times: number) =>
      expect(
        (await stack.platform.call("POST", `/bots/${bot2.id}/faults`, { method: "getMe", delay_ms: 20_000, times }))
          .status,
      ).toBe(200);
    const faultsTaken = () =>
      expect
        .poll(async () => (await stack.platform.call("GET", `/bots/${bot2.id}/faults`)).body.result.faults)
        .toEqual([]);
    // Two calls on one connection, pipelined: the second's answer waits behind the first's.
    await holdNext(2);
    const a = await open();
    a.socket.write(getMeRequest(bot2.token) + getMeRequest(bot2.token));
    await faultsTaken();
    a.socket.destroy();
    // One call held: had the queued call's count stayed, the bot would be at its bound.
    await holdNext(1);
    const b = await open();
    b.socket.write(getMeRequest(bot2.token));
    await faultsTaken();
    await expect
      .poll(async () => (await http(stack.gatewayUrl, "GET", `/bot${bot2.token}/getMe`)).status, { timeout: 15_000 })
      .toBe(200);
    b.socket.destroy();
  });

  it("answers a bot over its active calls the reference's 429 while other bots are served", async () => {
    const busy = await stack.platform.createBot({ first_name: "Busy" });
    const other = await stack.platform.createBot({ first_name: "Other" });
    // Each of the bot's next BOT_MAX_ACTIVE getMe calls is held 20 s by a scripted delay.
    const fault = await stack.platform.call("POST", `/bots/${busy.id}/faults`, {
      method: "getMe",
      delay_ms: 20_000,
      times: BOT_MAX_ACTIVE,
    });
    expect(fault.status).toBe(200);
    const held: Awaited<ReturnType<typeof open>>[] = [];
    for (let i = 0; i < BOT_MAX_ACTIVE; i++) {
      const c = await open();
      c.socket.write(getMeRequest(busy.token));
      held.push(c);
    }
    await expect
      .poll(async () => (await stack.platform.call("GET", `/bots/${busy.id}/faults`)).body.result.faults)
      .toEqual([]);

    const refused = http(stack.gatewayUrl, "GET", `/bot${busy.token}/getMe`);
    const served = await http(stack.gatewayUrl, "GET", `/bot${other.token}/getMe`);
    expect(served).toMatchObject({ status: 200, body: { ok: true } });
    expect(await refused).toMatchObject({
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: "Too Many Requests: retry after 60",
        parameters: { retry_after: 60 },
      },
    });
    // A long poll is not counted: the bot can still poll.
    expect(await http(stack.gatewayUrl, "GET", `/bot${busy.token}/getUpdates`)).toMatchObject({ status: 200 });
    // Gone from the gateway, the held calls free the bot's share.
    for (const c of held) c.socket.destroy();
    await expect
      .poll(async () => (await http(stack.gatewayUrl, "GET", `/bot${busy.token}/getMe`)).status, { timeout: 10_000 })
      .toBe(200);
  });
});
