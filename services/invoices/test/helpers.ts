import { readEntries } from "@starpost/update-log";
import { http, type Reply, type TestStack } from "@starpost/testkit";

/** The four ways a Bot API call can carry its parameters. */
export const ENCODINGS = ["query", "json", "urlencoded", "multipart"] as const;
export type Encoding = (typeof ENCODINGS)[number];

const boundary = "----starpost-invoices";
const asText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/** Calls a method with `params` in one encoding; forms and query strings carry JSON as text. */
export function callIn<T = any>(
  stack: TestStack,
  token: string,
  method: string,
  params: Record<string, unknown>,
  encoding: Encoding,
): Promise<Reply<T>> {
  const path = `/bot${token}/${method}`;
  const strings = Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, asText(v)] as [string, string]);
  switch (encoding) {
    case "query":
      return http<T>(stack.gatewayUrl, "GET", `${path}?${new URLSearchParams(strings)}`);
    case "json":
      return http<T>(stack.gatewayUrl, "POST", path, { body: params });
    case "urlencoded":
      return http<T>(stack.gatewayUrl, "POST", path, {
        body: new URLSearchParams(strings).toString(),
        contentType: "application/x-www-form-urlencoded",
      });
    case "multipart": {
      const body =
        strings
          .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
          .join("") + `--${boundary}--\r\n`;
      return http<T>(stack.gatewayUrl, "POST", path, {
        body: Buffer.from(body),
        contentType: `multipart/form-data; boundary=${boundary}`,
      });
    }
  }
}

/** Waits until the bot's log holds an update matching `pick`, and returns its object. */
export async function waitForUpdate(
  stack: TestStack,
  botId: number,
  pick: (u: any) => boolean,
  timeoutMs = 5000,
): Promise<any> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const entries = await readEntries(stack.redis, String(botId), 0, 10_000);
    const found = entries.map((e) => JSON.parse(e.json)).find(pick);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("update not found in the log");
}

/** Every update in the bot's log (the updates a polling bot would receive). */
export async function allUpdates(stack: TestStack, botId: number): Promise<any[]> {
  return (await readEntries(stack.redis, String(botId), 0, 100_000)).map((e) => JSON.parse(e.json));
}
