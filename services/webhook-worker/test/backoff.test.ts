import { describe, expect, it } from "vitest";
import { FRESH, nextRetry, parseRetryAfter, type RetryState } from "../src/delivery/backoff.ts";

const FAR = Number.MAX_SAFE_INTEGER;

/** The waits (seconds) before each retry after `n` failures in a row. */
function schedule(n: number, random: () => number, retryAfter?: (i: number) => number | undefined, scale = 1) {
  let state: RetryState = FRESH;
  const waits: number[] = [];
  for (let i = 0; i < n; i++) {
    const d = nextRetry(state, retryAfter?.(i), FAR, 0, scale, random);
    if (d.outcome !== "retry") throw new Error("dropped");
    waits.push(d.state.wakeupAt / 1000);
    state = d.state;
  }
  return waits;
}

describe("the retry schedule", () => {
  it("retries at once, then after 2, 4, 8 … s, capped at a random 60–120 s", () => {
    expect(schedule(9, () => 0)).toEqual([0, 2, 4, 8, 16, 32, 60, 60, 60]);
    expect(schedule(9, () => 0.999).slice(6)).toEqual([64, 120, 120]);
  });

  it("obeys Retry-After (0–3600 s) and then carries on doubling", () => {
    expect(
      schedule(
        5,
        () => 0,
        (i) => (i === 1 ? 30 : undefined),
      ),
    ).toEqual([0, 30, 2, 4, 8]);
    expect(
      schedule(
        2,
        () => 0,
        () => 99_999,
      ),
    ).toEqual([3600, 3600]);
  });

  it("scales the doubling delays (WEBHOOK_BACKOFF_SCALE) but not Retry-After", () => {
    expect(schedule(4, () => 0, undefined, 0.01)).toEqual([0, 0.02, 0.04, 0.08]);
    expect(
      schedule(
        2,
        () => 0,
        () => 5,
        0.01,
      ),
    ).toEqual([5, 5]);
  });

  it("drops an update whose lifetime ends before its next try", () => {
    expect(nextRetry({ fails: 1, delay: 1, wakeupAt: 0 }, undefined, 1_999, 0).outcome).toBe("drop");
    expect(nextRetry({ fails: 1, delay: 1, wakeupAt: 0 }, undefined, 2_000, 0).outcome).toBe("retry");
    expect(nextRetry(FRESH, 10, 9_999, 0).outcome).toBe("drop");
  });

  it("reads Retry-After as whole seconds only", () => {
    expect([
      parseRetryAfter("7"),
      parseRetryAfter(" 0 "),
      parseRetryAfter("1.5"),
      parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT"),
      parseRetryAfter(undefined),
    ]).toEqual([7, 0, 0, 0, 0]);
  });
});
