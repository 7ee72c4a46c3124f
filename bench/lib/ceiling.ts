/**
 * The one-hop ceiling, measured in the same run as the figure it is compared with: a bare fastify
 * server (its own process) answering a fixed JSON under the same load generator settings.
 */
import { stopProcess } from "@starpost/testkit";
import { autocannon, type LoadOptions, type LoadResult } from "./load.ts";
import { startScript } from "./processes.ts";
import type { Figure } from "./report.ts";

export async function bareCeiling(o: Omit<LoadOptions, "url"> = {}): Promise<LoadResult> {
  const { port, child } = await startScript("./bare-server.ts");
  try {
    return await autocannon({ ...o, url: `http://127.0.0.1:${port}/`, cpuOf: { bare: child.pid! } });
  } finally {
    await stopProcess(child);
  }
}

/** A webhook-sized update, the body a receiver's ceiling is measured with. */
export const UPDATE_BODY = JSON.stringify({ update_id: 1, message: { message_id: 1, date: 0, chat: { id: 1, type: "private", first_name: "Ann" }, text: "hi" } });

/**
 * CPU time one call costs across the processes that serve it, next to what the bare server spends
 * on one request. On a machine whose cores are the limit, throughput ratios follow these costs, and
 * unlike req/s they hardly move with the other load on a shared machine.
 */
export function cpuPerCallFigure(bench: string, what: string, ours: LoadResult, bare: LoadResult): Figure {
  const parts = Object.entries(ours.cpuUsPerRequest);
  const total = parts.reduce((sum, [, us]) => sum + us, 0);
  const bareUs = bare.cpuUsPerRequest.bare!;
  return {
    bench,
    name: `CPU per call, ${what}: ${parts.map(([name]) => name).join(" + ")}`,
    value: total,
    unit: "µs",
    ceiling: { name: "bare server µs", value: bareUs },
    ratio: bareUs / total,
    note: `µs per call: ${parts.map(([name, us]) => `${name} ${Math.round(us)}`).join(", ")}; bare ${Math.round(bareUs)}`,
  };
}
