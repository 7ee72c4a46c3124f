/**
 * The image's HEALTHCHECK (bundled as dist/healthcheck.mjs): GET /readyz on the port of the
 * service this container runs, so a container whose Redis (or, for the gateway, whose updates or
 * invoices service) does not answer is unhealthy, not only one whose process is gone. The service
 * is the argument if one is given, else read from PID 1's command line (dist/<service>.mjs); its
 * port comes from the environment as the service reads it.
 */
import { readFileSync } from "node:fs";
// The config module alone (not the package index), so each check starts fast.
import { ALL_CONFIG_SCHEMAS } from "../packages/shared/src/config.ts";

type Service = keyof typeof ALL_CONFIG_SCHEMAS;

const args = process.argv[2] ? [`${process.argv[2]}.mjs`] : readFileSync("/proc/1/cmdline", "utf8").split("\0");
const service = args
  .map((a) => /(?:^|\/)([a-z-]+)\.mjs$/.exec(a)?.[1])
  .find((s): s is Service => !!s && s in ALL_CONFIG_SCHEMAS);
if (!service) {
  console.error(`healthcheck: no starpost service in the command line: ${args.join(" ")}`);
  process.exit(1);
}
const shape = ALL_CONFIG_SCHEMAS[service].shape as Record<string, { parse(v: unknown): unknown }>;
const portVar = Object.keys(shape).find((k) => /(^|_)PORT$/.test(k))!;
const port = shape[portVar]!.parse(process.env[portVar] || undefined);

const bound = process.env.HOST;
const host = !bound || bound === "0.0.0.0" || bound === "::" ? "127.0.0.1" : bound.includes(":") ? `[${bound}]` : bound;

try {
  // /readyz answers within READY_TIMEOUT_MS (0.5 s by default, at most 3 s); this deadline is above it and below the
  // Dockerfile's --timeout (5 s), so a probe that gets no answer still ends with a reason.
  const res = await fetch(`http://${host}:${port}/readyz`, { signal: AbortSignal.timeout(4000) });
  if (!res.ok) throw new Error(`status ${res.status}`);
  process.exit(0);
} catch (err) {
  console.error(`healthcheck: ${service} on port ${port}: ${(err as Error).message}`);
  process.exit(1);
}
