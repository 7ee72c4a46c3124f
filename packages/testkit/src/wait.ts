export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Polls `check` every 10 ms until it holds; throws after `timeoutMs`, naming `what` (a function is
 * called at that moment, so the message can say what was seen meanwhile).
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what: string | (() => string) = "condition",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`);
    await sleep(10);
  }
}

/**
 * The sum of a Prometheus metric's samples (those containing `labels`, e.g. `reason="x"`, when
 * given) over the /metrics of one or more processes; 0 when absent.
 */
export async function metric(baseUrls: string | string[], name: string, labels = ""): Promise<number> {
  let sum = 0;
  for (const url of Array.isArray(baseUrls) ? baseUrls : [baseUrls]) {
    sum += metricIn(await (await fetch(`${url}/metrics`)).text(), name, labels);
  }
  return sum;
}

/** The same sum over one exposition text (a registry rendered in this process). */
export function metricIn(text: string, name: string, labels = ""): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels && !line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}
