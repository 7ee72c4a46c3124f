import { expect, it } from "vitest";
import { formatReport, runChaos } from "../chaos/chaos.ts";

/**
 * The short chaos run of `npm test` (the long one: `npm run chaos`). CHAOS_SEED replays a run's
 * kill schedule and choices; the seed is printed either way.
 */
it("kills services and Redis under load and loses nothing, pays, renews and refunds exactly once", async () => {
  const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`chaos seed ${seed} (replay: CHAOS_SEED=${seed} npx vitest run e2e/test/chaos.test.ts)`);
  const report = await runChaos({
    seconds: Number(process.env.CHAOS_TEST_SECONDS ?? 25),
    seed,
    log: (l) => console.log(l),
  });
  console.log(formatReport(report));
  expect(report.violations).toEqual([]);
  expect(report.kills["redis-server"]).toBeGreaterThanOrEqual(1);
  // How many service kills fit depends on how fast processes come back on a loaded machine.
  expect(Object.entries(report.kills).filter(([kind]) => kind !== "redis-server").length).toBeGreaterThanOrEqual(1);
  expect(report.ops.pushesAcked).toBeGreaterThan(0);
  expect(report.ops.paid).toBeGreaterThan(0);
  // Renewals are charges too: the invariants pair each with exactly one successful_payment.
  expect(report.ops.renewals).toBeGreaterThan(0);
}, 420_000);
