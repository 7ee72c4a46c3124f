/**
 * `starpost mcp`: an MCP server over stdio (the official SDK), so a coding agent can drive a bot
 * under development the way a test does: create a bot, send as a user, press a button, pay an
 * invoice or an invoice link, read the chat and the activity log, advance the clock. It talks to a
 * running starpost through the platform API (@starpost/client), named by STARPOST_URL and
 * STARPOST_PLATFORM_TOKEN as `starpost start` prints them. stdout is the protocol's: nothing
 * else is written there.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { Starpost, StarpostError, type StarpostBot, type StarpostChat } from "../../client/src/index.ts";

const botId = z.number().int().positive().describe("the bot's id (create_bot's `id`)");
const userId = z.number().int().positive().describe("the user's id; their private chat with the bot has the same id");
const firstName = z.string().min(1).max(64).optional().describe("the user's first name (default: User)");

type Result = { content: { type: "text"; text: string }[]; isError?: boolean };
const json = (value: unknown): Result => ({ content: [{ type: "text", text: JSON.stringify(value, null, 2) }] });

/** A tool's work, its StarpostError (the platform's answer) or TypeError shown to the agent as the tool's error. */
async function run(work: () => Promise<unknown>): Promise<Result> {
  try {
    return json(await work());
  } catch (err) {
    if (err instanceof StarpostError || err instanceof TypeError || err instanceof Error)
      return { content: [{ type: "text", text: err.message }], isError: true };
    throw err;
  }
}

export function starpostMcpServer(sp: Starpost): McpServer {
  const server = new McpServer({ name: "starpost", version: "0.1.0" });
  /** A bot's handle for platform calls (they need only its id). */
  const bot = (id: number): StarpostBot => sp.bot({ id, username: "", first_name: "", token: "" });
  const chat = (id: number, user: number, first_name = "User"): StarpostChat =>
    bot(id).chat({ id: user, type: "private", first_name }, { id: user, is_bot: false, first_name });

  server.registerTool(
    "create_bot",
    {
      description:
        "Register a bot on starpost; returns its id, username and token (point the bot's Bot API root at STARPOST_URL).",
      inputSchema: {
        username: z.string().optional().describe("5-32 characters ending in bot (default: a fresh one)"),
        first_name: z.string().optional(),
        tag: z.string().optional().describe("a label to list and delete bots together"),
      },
    },
    (args) =>
      run(async () => {
        const b = await sp.createBot(args);
        return { id: b.id, username: b.username, first_name: b.first_name, token: b.token, api_root: sp.url };
      }),
  );
  server.registerTool(
    "send_message",
    {
      description: "A user sends a text to the bot in their private chat (a /command included); returns the Message.",
      inputSchema: { bot_id: botId, user_id: userId, first_name: firstName, text: z.string().min(1).max(4096) },
    },
    ({ bot_id, user_id, first_name, text }) =>
      run(async () => {
        const c = await bot(bot_id).privateChat({ id: user_id, first_name: first_name ?? "User" });
        return c.send(text);
      }),
  );
  server.registerTool(
    "press_button",
    {
      description:
        "The user presses the inline button with this callback_data under a bot message; waits up to 5 s for the bot's answerCallbackQuery.",
      inputSchema: { bot_id: botId, user_id: userId, message_id: z.number().int().positive(), data: z.string() },
    },
    ({ bot_id, user_id, message_id, data }) => run(() => chat(bot_id, user_id).press(message_id, data)),
  );
  server.registerTool(
    "pay_invoice",
    {
      description:
        "The user pays the bot's invoice message (Stars); waits for the bot's pre-checkout answer: paid, declined or expired.",
      inputSchema: { bot_id: botId, user_id: userId, first_name: firstName, message_id: z.number().int().positive() },
    },
    ({ bot_id, user_id, first_name, message_id }) => run(() => chat(bot_id, user_id, first_name).pay(message_id)),
  );
  server.registerTool(
    "pay_link",
    {
      description: "The user pays an invoice link (createInvoiceLink's result; a subscription's first payment).",
      inputSchema: { bot_id: botId, user_id: userId, first_name: firstName, link: z.string().min(1) },
    },
    ({ bot_id, user_id, first_name, link }) => run(() => chat(bot_id, user_id, first_name).payLink(link)),
  );
  server.registerTool(
    "read_chat",
    {
      description:
        "A chat's history in order (the user's and the bot's messages, as edited; service messages); wait_ms holds the read for the bot's next message.",
      inputSchema: {
        bot_id: botId,
        chat_id: z.number().int().describe("the chat's id (a private chat's is the user's)"),
        after_message_id: z.number().int().min(0).optional(),
        limit: z.number().int().min(1).max(1000).optional(),
        wait_ms: z.number().int().min(0).max(30_000).optional(),
      },
    },
    ({ bot_id, chat_id, after_message_id, limit, wait_ms }) =>
      run(() =>
        bot(bot_id)
          .chat({ id: chat_id, type: chat_id > 0 ? "private" : "group" })
          .messages({
            ...(after_message_id === undefined ? {} : { after: after_message_id }),
            ...(limit === undefined ? {} : { limit }),
            ...(wait_ms === undefined ? {} : { waitMs: wait_ms }),
          }),
      ),
  );
  server.registerTool(
    "read_activity",
    {
      description:
        "The bot's activity log after a position: its Bot API calls, updates, webhook attempts, confirmations, payments, refunds, renewals, replays. Pass the answer's position as `after` to read on.",
      inputSchema: {
        bot_id: botId,
        after: z.number().int().min(0).optional().describe("a position from an earlier answer (default 0: the start)"),
        kinds: z
          .array(z.enum(["call", "update", "attempt", "confirm", "drop", "payment", "refund", "renewal", "replay"]))
          .optional(),
        limit: z.number().int().min(0).max(1000).optional(),
        wait_ms: z.number().int().min(0).max(30_000).optional(),
      },
    },
    ({ bot_id, after, kinds, limit, wait_ms }) =>
      run(() =>
        bot(bot_id).activity({
          ...(after === undefined ? {} : { after }),
          ...(kinds === undefined ? {} : { kinds }),
          ...(limit === undefined ? {} : { limit }),
          ...(wait_ms === undefined ? {} : { waitMs: wait_ms }),
        }),
      ),
  );
  server.registerTool(
    "advance_clock",
    {
      description:
        "Moves the bot's subscription clock forward; every renewal that comes due runs (a charge and a successful_payment each).",
      inputSchema: { bot_id: botId, seconds: z.number().int().min(0).max(315_360_000) },
    },
    ({ bot_id, seconds }) => run(() => bot(bot_id).advanceClock(seconds)),
  );
  return server;
}

/** Serves the tools on stdin/stdout until the client closes them. */
export async function serveMcp(): Promise<void> {
  const server = starpostMcpServer(Starpost.fromEnv());
  await server.connect(new StdioServerTransport());
}
