/**
 * The one-hop ceiling, measured in the same run as the figure it is compared with: a bare fastify
 * server (its own process) answering a fixed JSON under the same load generator settings.
 */
import { stopProcess } from "@starpost/testkit";
import { autocannon, type LoadOptions, type LoadResult } from "./load.ts";
import { startScript } from "./processes.ts";

export async function bareCeiling(o: Omit<LoadOptions, "url"> = {}): Promise<LoadResult> {
  const { port, child } = await startScript("./bare-server.ts");
  try {
    return await autocannon({ ...o, url: `http://127.0.0.1:${port}/` });
  } finally {
    await stopProcess(child);
  }
}

/** A webhook-sized update, the body a receiver's ceiling is measured with. */
export const UPDATE_BODY = JSON.stringify({ update_id: 1, message: { message_id: 1, date: 0, chat: { id: 1, type: "private", first_name: "Ann" }, text: "hi" } });
