#!/usr/bin/env node
/**
 * The `starpost` command (the bin of @starpost/cli, bundled into dist/starpost.mjs by
 * `pnpm run build`; `npm start` runs `starpost start`).
 *
 *   starpost start [--port N] [--data-dir DIR]
 *   starpost mcp
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { serveMcp } from "./mcp.ts";
import { start } from "./start.ts";

const USAGE = `usage: starpost start [--port N] [--data-dir DIR]
       starpost mcp

  start       runs the whole stack (Redis, gateway, invoices, updates, webhook workers) until Ctrl-C
  --port      the gateway's port (default: PORT, else 8081; 0: any free port)
  --data-dir  Redis's data, the logs and the platform token (default: STARPOST_DATA_DIR, else ./.starpost)
  mcp         an MCP server on stdin/stdout with the tools a test uses (create a bot, send as a user,
              press, pay, read the chat and the activity log, advance the clock), for a running
              starpost named by STARPOST_URL and STARPOST_PLATFORM_TOKEN

  REDIS_URL       use this Redis instead of a private redis-server from the PATH
  PLATFORM_TOKEN  the platform token (default: one made on the first start, kept in the data dir)
`;

function fail(message: string): never {
  process.stderr.write(`starpost: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { port: { type: "string" }, "data-dir": { type: "string" }, help: { type: "boolean", short: "h" } },
    });
  } catch (err) {
    return fail((err as Error).message);
  }
})();

if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const [command, ...rest] = positionals;
if (command !== "start" && command !== "mcp")
  fail(command === undefined ? "a command is required" : `unknown command ${command}`);
if (rest.length > 0) fail(`unexpected ${rest.join(" ")}`);
if (command === "mcp") {
  if (values.port !== undefined || values["data-dir"] !== undefined) fail("mcp takes no options");
  try {
    await serveMcp();
  } catch (err) {
    process.stderr.write(`starpost mcp: ${(err as Error).message}\n`);
    process.exit(1);
  }
} else await startCommand();

async function startCommand() {
  const portText = values.port ?? (process.env.PORT || "8081");
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) fail(`--port must be 0-65535, got ${portText}`);
  const port = Number(portText) === 0 ? undefined : Number(portText);

  // Absolute: the services run in another working directory and are given paths inside it.
  const dataDir = resolve(values["data-dir"] ?? process.env.STARPOST_DATA_DIR ?? ".starpost");
  try {
    await start({ dataDir, port });
  } catch (err) {
    // Whatever else stops the start: one line, as the checks say theirs, never a stack trace.
    process.stderr.write(`starpost: ${(err as Error).message.replace(/\s+/g, " ")}\n`);
    process.exit(1);
  }
}
