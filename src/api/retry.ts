// Retry policy: at most 3 tries, exponential backoff with "equal jitter" (half of each wait
// fixed, half random), Retry-After honoured (capped at a minute).

export const MAX_TRIES = 3;

export interface RetryTiming {
  baseMs: number;
  maxMs: number;
  random: () => number;
}

export const DEFAULT_TIMING: RetryTiming = { baseMs: 250, maxMs: 8_000, random: Math.random };

/** Delay before try number `nextTry` (2 or 3). */
export function backoffDelay(nextTry: number, timing: RetryTiming = DEFAULT_TIMING, retryAfter?: string | null): number {
  const fromHeader = parseRetryAfter(retryAfter);
  if (fromHeader !== undefined) return Math.min(fromHeader, 60_000);
  const ceiling = Math.min(timing.maxMs, timing.baseMs * 2 ** (nextTry - 2));
  // Half fixed, half random: spreads clients apart while keeping a floor.
  return Math.round(ceiling / 2 + (timing.random() * ceiling) / 2);
}

export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}
