// `--timeout`: the most time the command spends on the network (src/api/budget.ts). A command
// that runs for as long as a person likes (review --watch, webhook listen, a batch's rows)
// renews it per round, so each round has the whole --timeout.
import { NetworkBudget } from '../api/budget.js';
import { DEFAULT_TIMEOUT_MS } from '../api/limits.js';
import { DURATION_RULE, parseDuration } from '../domain/duration.js';
import { UsageError } from '../errors.js';
import { sanitize } from '../io/sanitize.js';

export interface NetworkTime {
  /** The --timeout in milliseconds (a bad value is a usage error, exit 2). */
  timeoutMs(): number;
  /** The budget requests count against now. */
  budget(): NetworkBudget;
  /** A full budget again. */
  renew(): void;
}

/** A duration (`30s`, `2m`, `500ms`); a bare number is still read as milliseconds (older scripts). */
export function parseTimeout(text: string | undefined): number {
  if (text === undefined) return DEFAULT_TIMEOUT_MS;
  const ms = /^\d+$/.test(text.trim()) ? Number(text.trim()) : parseDuration(text);
  if (ms === undefined || !Number.isSafeInteger(ms) || ms <= 0) {
    throw new UsageError(`--timeout "${sanitize(text)}" ${ms === undefined ? DURATION_RULE : 'must be longer than 0s'}`);
  }
  return ms;
}

export function networkTime(timeoutText: string | undefined): NetworkTime {
  let current: NetworkBudget | undefined;
  const timeoutMs = () => parseTimeout(timeoutText);
  return {
    timeoutMs,
    budget: () => (current ??= new NetworkBudget(timeoutMs())),
    renew: () => void (current = new NetworkBudget(timeoutMs())),
  };
}
