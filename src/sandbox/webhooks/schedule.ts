// The retry schedule of a webhook delivery (docs/webhooks.md). After the first attempt:
// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, each ±20 % jitter and counted from the end of the failed
// attempt, then one last attempt at exactly 24 h after the first; after that the delivery is
// `exhausted`. A timeout or a Retry-After waits at least 60 s (and at least what Retry-After says).
// Pure functions: the engine feeds them sandbox-clock instants.

export const RETRY_DELAYS_MS: readonly number[] = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000];
/** The last attempt is made exactly this long after the first. */
export const RETRY_WINDOW_MS = 24 * 3_600_000;
/** ±20 %. */
export const JITTER = 0.2;
/** The least wait after a timeout or an answer with Retry-After. */
export const MIN_BACKOFF_AFTER_TIMEOUT_MS = 60_000;
/** One first attempt, six scheduled retries, one last attempt at 24 h. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 2;

export interface FailedAttempt {
  /** 1-based number of the attempt that failed. */
  attempt: number;
  /** When the first attempt of the delivery was made (start of the 24 h window). */
  firstAttemptAt: number;
  /** When the failed attempt ended. */
  failedAt: number;
  /** Whether that attempt was the last one (made at the end of the window). */
  wasFinal: boolean;
  timedOut: boolean;
  /** Milliseconds the receiver asked for in Retry-After, when it sent one. */
  retryAfterMs?: number;
  /** A number in [0, 1). */
  random: () => number;
}

export interface NextAttempt {
  at: number;
  /** The attempt at the end of the 24 h window: nothing comes after it. */
  final: boolean;
}

/** When to try again after a failed attempt, or null when the delivery is exhausted. */
export function nextAttempt(f: FailedAttempt): NextAttempt | null {
  if (f.wasFinal || f.attempt >= MAX_ATTEMPTS) return null;
  const deadline = f.firstAttemptAt + RETRY_WINDOW_MS;
  const base = RETRY_DELAYS_MS[f.attempt - 1];
  if (base === undefined) return { at: Math.max(deadline, f.failedAt), final: true };
  let delay = Math.round(base * (1 - JITTER + 2 * JITTER * f.random()));
  if (f.timedOut || f.retryAfterMs !== undefined) delay = Math.max(delay, MIN_BACKOFF_AFTER_TIMEOUT_MS, f.retryAfterMs ?? 0);
  const at = f.failedAt + delay;
  if (at >= deadline) return { at: Math.max(deadline, f.failedAt), final: true };
  return { at, final: false };
}

/** Reads Retry-After (seconds, or an HTTP date against `now`) into milliseconds. */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  const text = v.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
