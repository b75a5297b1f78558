// The retry policy: which requests may be sent again (GETs, and POSTs under an idempotency key),
// after which outcomes (a network failure, 429, 5xx), how long to pause (exponential backoff with
// "equal jitter", or the server's Retry-After capped at a minute), and how the pause counts
// against the command's --timeout. At most 3 tries.
import type { NetworkBudget } from './budget.js';
import { header, type Method, type Outcome } from './attempt.js';
import { unlessAborted } from './abortable.js';

export const MAX_TRIES = 3;

export interface RetryTiming {
  baseMs: number;
  maxMs: number;
  random: () => number;
}

export const DEFAULT_TIMING: RetryTiming = { baseMs: 250, maxMs: 8_000, random: Math.random };

/** Delay before try number `nextTry` (2 or 3); `now` reads a Retry-After given as a date. */
export function backoffDelay(nextTry: number, timing: RetryTiming = DEFAULT_TIMING, retryAfter?: string | null, now?: number): number {
  const fromHeader = parseRetryAfter(retryAfter, now);
  if (fromHeader !== undefined) return Math.min(fromHeader, 60_000);
  const ceiling = Math.min(timing.maxMs, timing.baseMs * 2 ** (nextTry - 2));
  // Half fixed, half random: spreads clients apart while keeping a floor.
  return Math.round(ceiling / 2 + (timing.random() * ceiling) / 2);
}

/**
 * Retry-After in ms: whole seconds, or an HTTP date measured from `now` (the caller's clock).
 * Without `now` a date cannot be read, and is ignored.
 */
export function parseRetryAfter(value: string | null | undefined, now?: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) || now === undefined ? undefined : Math.max(0, at - now);
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Only these are safe to send twice: a GET, and a POST whose key makes the service answer a repeat with the first answer. */
export function isRepeatable(method: Method, idempotencyKey: string | undefined): boolean {
  return method === 'GET' || (method === 'POST' && idempotencyKey !== undefined);
}

/** The policy for one request: told each try's outcome, it says whether to try again, and when. */
export class RetryPolicy {
  private tries = 0;

  constructor(
    private readonly repeatable: boolean,
    private readonly timing: RetryTiming,
    private readonly now: () => number,
  ) {}

  /**
   * After a try ended with `outcome`, with `remainingMs` of the budget left: the pause before the
   * next try, or undefined to stop and report this outcome. A time limit, an interruption or an
   * answer too large is never retried.
   */
  pauseAfter(outcome: Outcome, remainingMs: number): number | undefined {
    this.tries++;
    if (!this.repeatable || this.tries >= MAX_TRIES) return undefined;
    const next = this.tries + 1;
    // After a failed connection the pause is started even when it outlasts the budget: pause()
    // cuts it to what is left, and the request then ends as a `timeout`.
    if (outcome.kind === 'failed') return backoffDelay(next, this.timing);
    if (outcome.kind !== 'answer' || !isRetryableStatus(outcome.status)) return undefined;
    const delay = backoffDelay(next, this.timing, header(outcome.headers, 'retry-after'), this.now());
    // A pause that would outlast the budget is not worth starting: report the answer now.
    return delay < remainingMs ? delay : undefined;
  }
}

/**
 * The pause between tries, counted against the budget as network time (it is part of getting an
 * answer), and never longer than what is left. Aborting `signal` ends it early (rejects).
 */
export async function pause(budget: NetworkBudget, sleep: (ms: number) => Promise<void>, ms: number, signal?: AbortSignal): Promise<void> {
  const wait = Math.min(ms, budget.remainingMs);
  try {
    await (signal ? unlessAborted(signal, sleep(wait)) : sleep(wait));
  } finally {
    budget.spend(wait);
  }
}
