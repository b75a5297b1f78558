// The paging rule of every list: `limit` and `offset` of GET /v1/transfers and the sandbox's
// other paged routes, and the tool's --limit / --offset. One definition for both sides, so a
// message naming the rule is the rule.

/** Results per page: the spec's default and maximum. */
export const PAGE_LIMIT_DEFAULT = 20;
export const PAGE_LIMIT_MAX = 100;
/** The largest offset: the largest whole number a JSON number (and so any client) holds exactly. */
export const OFFSET_MAX = Number.MAX_SAFE_INTEGER;

/** The rule as a message says it: `a whole number from 0 to 9007199254740991` (written in digits). */
export function wholeNumberRule(min: number, max: number): string {
  return `a whole number from ${min} to ${max}`;
}

/** A whole number written in digits (leading zeros allowed) within [min, max]; else undefined. */
export function parseWholeNumber(text: string, min: number, max: number): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  // Compared exactly: past 2^53 a Number would round (9007199254740993 reads as ...992).
  const n = BigInt(text);
  if (n < BigInt(min) || n > BigInt(max)) return undefined;
  return Number(n);
}
