/**
 * `npm run chaos`: the chaos run (e2e/chaos) for CHAOS_SECONDS (default 300) of kills, then a
 * table: kills per process kind, time from each kill until every /readyz is green again (p50,
 * max), operations done, invariant violations (must be 0). CHAOS_SEED replays a run's kill
 * schedule and choices; CHAOS_REDIS_KILLS (default 1 per 2 minutes, at least 1) kills of Redis.
 * Exits 1 when any invariant was violated.
 */
import { formatReport, runChaos } from "../e2e/chaos/chaos.ts";

const seconds = Number(process.env.CHAOS_SECONDS ?? 300);
const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const redisKills = Number(process.env.CHAOS_REDIS_KILLS ?? Math.max(1, Math.round(seconds / 120)));
process.stdout.write(`chaos seed ${seed} (replay: CHAOS_SEED=${seed} npm run chaos)\n`);
const report = await runChaos({ seconds, seed, redisKills, log: (l) => process.stdout.write(`${l}\n`) });
process.stdout.write(`\n${formatReport(report)}\n`);
if (report.events.length) process.stdout.write(`\nsupervisor:\n${report.events.map((e) => `  ${e}`).join("\n")}\n`);
process.exit(report.violations.length ? 1 : 0);
