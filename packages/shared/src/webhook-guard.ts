import { BlockList, isIP } from "node:net";

/**
 * The SSRF guard shared by setWebhook (updates service) and delivery (webhook worker): webhook
 * URLs are parsed the official server's way, and a destination that is loopback, private,
 * link-local or otherwise reserved is refused unless the operator allowed private networks.
 * Delivery checks again on every new connection (the worker's TargetGuard), so a DNS answer that
 * changes after setWebhook cannot smuggle a private target in.
 */

const reserved = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata lives here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  reserved.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard
  ["2001::", 23], // IETF protocol assignments
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const)
  reserved.addSubnet(net, prefix, "ipv6");

/** The eight 16-bit groups of an IPv6 address in any spelling; undefined when it is not one URL parsing accepts. */
function ipv6Groups(ip: string): number[] | undefined {
  let text: string;
  try {
    // The WHATWG serialisation: lower-case hex groups, the longest zero run as `::`, no dotted quad.
    text = new URL(`http://[${ip}]`).hostname.slice(1, -1);
  } catch {
    return undefined; // a zone id, say: nothing to judge by
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const part = (t: string | undefined) => (t ? t.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  return tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
const zeros = (g: number[], from: number, to: number) => g.slice(from, to).every((x) => x === 0);

/**
 * How an IPv6 address is judged when it embeds an IPv4 one: by that address (IPv4-mapped
 * `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`), or
 * refused whole (IPv4-compatible `::/96`, deprecated and never a real destination). Undefined when
 * it embeds none.
 */
function embeddedIpv4(g: number[]): string | "refuse" | undefined {
  if (zeros(g, 0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!); // mapped
  if (zeros(g, 0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!); // translated
  if (zeros(g, 0, 6)) return "refuse"; // compatible (and :: and ::1)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(g, 2, 6)) return v4(g[6]!, g[7]!); // NAT64
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!); // 6to4
  return undefined;
}

/** True for loopback, private, link-local, multicast, documentation and other reserved addresses. */
export function isReservedIp(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return reserved.check(ip, "ipv4");
  if (family !== 6) return true;
  const groups = ipv6Groups(ip);
  if (!groups || groups.length !== 8) return true;
  const embedded = embeddedIpv4(groups);
  if (embedded === "refuse") return true;
  if (embedded !== undefined) return reserved.check(embedded, "ipv4");
  return reserved.check(groups.map((x) => x.toString(16)).join(":"), "ipv6");
}

/** Characters td's parse_url allows in a host (and, with `:`, in userinfo), besides %XX and non-ASCII. */
const URL_PART = /^(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2}|[^\x00-\x7f])*$/;

/**
 * td's parse_url (the official server's check of a webhook URL): an optional http/https scheme
 * (https when absent), `[userinfo@]host[:port]` with a non-empty host of allowed characters, a
 * port of 1..65535. Returns the URL with its scheme, or undefined.
 */
function checkUrlLikeReference(raw: string): string | undefined {
  const schemeEnd = raw.search(/[:/?#@[\]]/);
  let rest = raw;
  let scheme = "https";
  if (schemeEnd >= 0 && raw.startsWith("://", schemeEnd)) {
    scheme = raw.slice(0, schemeEnd).toLowerCase();
    if (scheme !== "http" && scheme !== "https") return undefined;
    rest = raw.slice(schemeEnd + 3);
  }
  const authority = rest.slice(0, rest.search(/[/?#]|$/));
  let colon = authority.length - 1;
  while (colon > 0 && !":]@".includes(authority[colon]!)) colon--;
  let userHost = authority;
  if (colon > 0 && authority[colon] === ":") {
    const port = authority.slice(colon + 1).replace(/^0+(?=.)/, "");
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return undefined;
    userHost = authority.slice(0, colon);
  }
  const at = userHost.lastIndexOf("@");
  const userinfo = at < 0 ? "" : userHost.slice(0, at);
  const host = userHost.slice(at + 1);
  if (host === "" || host === ".") return undefined;
  if (host.startsWith("[") && host.endsWith("]")) {
    if (isIP(host.slice(1, -1)) !== 6) return undefined;
  } else if (!URL_PART.test(host) || !URL_PART.test(userinfo.replaceAll(":", ""))) return undefined;
  return `${scheme}://${rest}`;
}

/**
 * Parses a webhook URL: the reference's rules first (so `https:///hook`, which WHATWG URL
 * parsing would read as host "hook", is invalid), then WHATWG URL, which delivery uses. Like the
 * official server, a URL without a scheme is taken as https. Returns undefined for anything else.
 */
/** td's parse_url alone (the reference's `invalid webhook URL specified` check, Client.cpp at 01a3679, line 16014). */
export const isWebhookUrlLike = (raw: string): boolean => checkUrlLikeReference(raw) !== undefined;

export function parseWebhookUrl(raw: string): URL | undefined {
  const text = checkUrlLikeReference(raw);
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.hostname === "") return undefined;
  return url;
}

/** The host of a parsed URL as an address or a name (IPv6 literals lose their brackets). */
export function urlHost(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}
