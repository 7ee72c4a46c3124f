import type { ChildProcess } from "node:child_process";

/**
 * Restarts processes that die, as Docker Compose's `restart: unless-stopped` does: after a
 * backoff that doubles with each quick death (0.5 s, 1 s, 2 s … capped), with a line naming the
 * process. A process that dies `maxTries` times in a row, each within `stableMs` of its start, is
 * crash-looping: reported and given up. `stop()` ends all restarting (Ctrl-C, a test's teardown).
 */
export interface SupervisorOptions {
  log?: (line: string) => void;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** a process that ran this long before dying starts a fresh count of tries. */
  stableMs?: number;
  maxTries?: number;
  /** called once a process is given up on (`npm start` then stops the whole stack, naming why). */
  onGiveUp?: (name: string) => void;
}

export interface SupervisedState {
  restarts: number;
  gaveUp: boolean;
}

export class Supervisor {
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  readonly state = new Map<string, SupervisedState & { tries: number }>();

  constructor(private readonly opts: SupervisorOptions = {}) {}

  /** Watches `child`; when it dies, `respawn` is called after the backoff and the new child watched. */
  watch(name: string, child: ChildProcess, respawn: () => ChildProcess): void {
    const { baseDelayMs = 500, maxDelayMs = 10_000, stableMs = 10_000, maxTries = 5 } = this.opts;
    const state = this.state.get(name) ?? { restarts: 0, gaveUp: false, tries: 0 };
    this.state.set(name, state);
    const started = Date.now();
    child.once("exit", (code, signal) => {
      if (this.stopped) return;
      state.tries = Date.now() - started < stableMs ? state.tries + 1 : 1;
      if (state.tries > maxTries) {
        state.gaveUp = true;
        this.log(
          `${name} keeps crashing (${maxTries} restarts, each dying within ${stableMs / 1000} s): giving up on it`,
        );
        this.opts.onGiveUp?.(name);
        return;
      }
      const delay = Math.min(baseDelayMs * 2 ** (state.tries - 1), maxDelayMs);
      this.log(
        `${name} exited (${signal ?? `code ${code}`}); restarting in ${delay} ms (try ${state.tries} of ${maxTries})`,
      );
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (this.stopped) return;
        state.restarts++;
        this.watch(name, respawn(), respawn);
      }, delay);
      this.timers.add(timer);
    });
  }

  /** Names of the processes given up on. */
  get crashLooping(): string[] {
    return [...this.state].filter(([, s]) => s.gaveUp).map(([n]) => n);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private log(line: string): void {
    (this.opts.log ?? ((l) => process.stderr.write(`starpost: ${l}\n`)))(line);
  }
}
