/**
 * The bytes of 2xx webhook answers a worker process holds at once, whatever its receivers send:
 * each answer is read chunk by chunk (for a `method` to run) and takes its bytes here first. A
 * chunk that does not fit is never waited for: answers waiting on each other's bytes would all
 * run into the attempt's deadline, so the answer is ignored instead (the update still counts as
 * delivered) and the reading stops.
 */
export class ReplyBudget {
  private used = 0;

  constructor(readonly maxBytes: number) {}

  /** Takes `n` bytes; false (nothing taken) when they do not fit. */
  take(n: number): boolean {
    if (this.used + n > this.maxBytes) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used -= n;
  }
}
