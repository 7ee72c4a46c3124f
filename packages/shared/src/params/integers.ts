/** td's integer readers (tdutils/td/utils/misc.h), on which every numeric getter of the reference rests. */

const pow10 = (n: number) => 10n ** BigInt(n);

/**
 * td's `to_integer<intN>`: an optional `-`, then the digits up to the first non-digit (no
 * spaces, no `+`, no exponent: " 5", "+5" and "x" are 0, "1e3" is 1, "12abc" is 12), wrapped to
 * N bits the way C++'s unsigned arithmetic wraps.
 */
export function toInteger(text: string, bits: 32 | 64): bigint {
  const mod = 1n << BigInt(bits);
  const max = (1n << BigInt(bits - 1)) - 1n;
  let i = text.startsWith("-") ? 1 : 0;
  let negative = i === 1;
  let end = i;
  while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
  let value = 0n;
  // 15 digits at a time keeps a megabyte of digits cheap.
  for (; i < end; i += 15) {
    const chunk = text.slice(i, Math.min(i + 15, end));
    value = (value * pow10(chunk.length) + BigInt(chunk)) % mod;
  }
  if (value > max) {
    value = (mod - value) % mod;
    negative = !negative;
    if (value > max) return -(max + 1n);
  }
  return negative ? -value : value;
}

/** td's `to_integer_safe<int64>`: the text must be exactly an integer's decimal form within int64. */
export function toIntegerSafe(text: string): bigint | undefined {
  const n = toInteger(text, 64);
  return n.toString() === text ? n : undefined;
}
