/**
 * Why a process stopped, in one line, from the last lines it wrote (its log): what `npm start`
 * prints when a service cannot start or keeps crashing, instead of a stack trace to look for in
 * <data dir>/logs. In order: the one line a service prints for a bad setting ("starpost
 * <service>: invalid environment variable …"), node's line for an uncaught error ("Error: listen
 * EADDRINUSE …", the first line of its stack trace) with the last error the process logged
 * before it, else the last error it logged, else its last line.
 */

/** How many of a process's last lines are kept to find the reason in. */
export const REASON_LINES = 40;

const MAX_REASON = 400;

interface PinoLine {
  level?: number;
  msg?: string;
  err?: { message?: string };
}

function loggedError(line: string): string | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(line) as PinoLine;
    if ((parsed.level ?? 0) < 50) return undefined;
    return [parsed.msg, parsed.err?.message].filter(Boolean).join(": ") || undefined;
  } catch {
    return undefined;
  }
}

const oneLine = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_REASON ? `${flat.slice(0, MAX_REASON - 1)}…` : flat;
};

/** The last line `pick` accepts (Array.prototype.findLast is ES2023, past the repository's target). */
function lastOf(lines: readonly string[], pick: (line: string) => boolean): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) if (pick(lines[i]!)) return lines[i];
  return undefined;
}

export function crashReason(lines: readonly string[]): string | undefined {
  const setting = lastOf(lines, (l) => /^starpost [a-z-]+: /.test(l));
  if (setting) return oneLine(setting.replace(/^starpost [a-z-]+: /, ""));
  const uncaught = lastOf(lines, (l) => /^[A-Za-z]*Error(?: \[[A-Z_]+\])?: \S/.test(l));
  const logged = lastOf(lines, (l) => loggedError(l) !== undefined);
  const lastLogged = logged === undefined ? undefined : loggedError(logged);
  if (uncaught) {
    const what = uncaught.replace(/^Error: /, "");
    const inUse = /EADDRINUSE\b.*?:(\d+)\s*$/.exec(what);
    if (inUse) return `port ${inUse[1]} is in use`;
    return oneLine(lastLogged && !what.includes(lastLogged) ? `${what} (after: ${lastLogged})` : what);
  }
  if (lastLogged) return oneLine(lastLogged);
  const last = lastOf(lines, (l) => l.trim() !== "");
  return last === undefined ? undefined : oneLine(last);
}
