import { describe, expect, it } from "vitest";
import { isReservedIp } from "@starpost/shared";

// Every IPv6 form that carries an IPv4 address is judged by that address (or refused whole), in
// every spelling: compressed, full, upper case, leading zeros, a dotted quad or hex groups.
const PRIVATE_V4 = ["127.0.0.1", "10.1.2.3", "192.168.1.1", "169.254.169.254", "0.0.0.0", "172.16.5.4"];
const PUBLIC_V4 = ["8.8.8.8", "1.1.1.1", "93.184.216.34"];

const hex = (ip: string) => {
  const [a, b, c, d] = ip.split(".").map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
};

/** Each form: a name and its spellings of an IPv4 address. */
const FORMS: [string, (v4: string) => string[]][] = [
  [
    "IPv4-mapped ::ffff:0:0/96",
    (v4) => [
      `::ffff:${v4}`,
      `::FFFF:${hex(v4).join(":")}`,
      `0:0:0:0:0:ffff:${v4}`,
      `0000:0000:0000:0000:0000:ffff:${hex(v4).join(":")}`,
    ],
  ],
  [
    "IPv4-translated ::ffff:0:0:0/96",
    (v4) => [`::ffff:0:${v4}`, `::ffff:0:${hex(v4).join(":")}`, `0:0:0:0:ffff:0:${v4}`],
  ],
  ["NAT64 64:ff9b::/96", (v4) => [`64:ff9b::${v4}`, `64:FF9B::${hex(v4).join(":")}`, `0064:ff9b:0:0:0:0:${v4}`]],
  ["6to4 2002::/16", (v4) => [`2002:${hex(v4).join(":")}::1`, `2002:${hex(v4).join(":")}:0:0:0:0:abcd`]],
];

describe("IPv6 forms that embed an IPv4 address", () => {
  const cases = FORMS.flatMap(([form, spell]) => [
    ...PRIVATE_V4.flatMap((v4) => spell(v4).map((ip) => [form, ip, v4, true] as const)),
    ...PUBLIC_V4.flatMap((v4) => spell(v4).map((ip) => [form, ip, v4, false] as const)),
  ]);
  it.each(cases)("%s: %s (carrying %s) reserved: %s", (_form, ip, _v4, expected) => {
    expect(isReservedIp(ip)).toBe(expected);
  });

  it.each([...PRIVATE_V4, ...PUBLIC_V4].flatMap((v4) => [`::${v4}`, `::${hex(v4).join(":")}`, `0:0:0:0:0:0:${v4}`]))(
    "IPv4-compatible ::/96 is refused whole (deprecated): %s",
    (ip) => {
      expect(isReservedIp(ip)).toBe(true);
    },
  );

  it.each(["64:ff9b:1::1", "64:ff9b:1:ffff::8.8.8.8", "64:FF9B:0001::a00:1"])(
    "local-use NAT64 64:ff9b:1::/48 is refused whole: %s",
    (ip) => {
      expect(isReservedIp(ip)).toBe(true);
    },
  );

  it.each(["2606:4700::1111", "2a00:1450:4001:81b::200e", "2001:4860:4860::8888"])(
    "a global IPv6 address that embeds nothing stays open: %s",
    (ip) => {
      expect(isReservedIp(ip)).toBe(false);
    },
  );

  it.each(["fe80::1%eth0", "not an address", "::ffff:999.1.1.1"])("what cannot be judged is refused: %s", (ip) => {
    expect(isReservedIp(ip)).toBe(true);
  });
});
