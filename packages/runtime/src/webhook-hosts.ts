import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isReservedIp } from "@starpost/shared";

export type ResolveOutcome =
  { outcome: "ok"; ip: string } | { outcome: "reserved"; ip: string } | { outcome: "unresolved"; message: string };

/**
 * Resolves a webhook host the way the official server picks its address (the first IPv4, else
 * the first IPv6) and checks it against the reserved ranges unless private networks are allowed.
 */
export async function resolveWebhookHost(host: string, allowPrivate: boolean): Promise<ResolveOutcome> {
  let ip: string;
  if (isIP(host)) ip = host;
  else {
    try {
      const all = await lookup(host, { all: true, verbatim: true });
      const chosen = all.find((a) => a.family === 4) ?? all[0];
      if (!chosen) return { outcome: "unresolved", message: "Name or service not known" };
      ip = chosen.address;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const message = code === "EAI_AGAIN" ? "Temporary failure in name resolution" : "Name or service not known";
      return { outcome: "unresolved", message };
    }
  }
  if (!allowPrivate && isReservedIp(ip)) return { outcome: "reserved", ip };
  return { outcome: "ok", ip };
}
