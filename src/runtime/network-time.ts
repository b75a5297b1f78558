// `--timeout`: the most time the command spends on the network (src/api/budget.ts). A command
// that runs for as long as a person likes (review --watch, webhook listen, a batch's rows)
// renews it per round, so each round has the whole --timeout.
import { NetworkBudget } from '../api/budget.js';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from '../api/limits.js';
import { parseDurationFlag } from './flags.js';

export interface NetworkTime {
  /** The --timeout in milliseconds (a bad value is a usage error, exit 2). */
  timeoutMs(): number;
  /** The budget requests count against now. */
  budget(): NetworkBudget;
  /** A full budget again. */
  renew(): void;
}

/** --timeout: a duration (`30s`, `2m`, `500ms`); a bare number is seconds, as for curl's --max-time. */
export function parseTimeout(text: string | undefined): number {
  return text === undefined ? DEFAULT_TIMEOUT_MS : parseDurationFlag('--timeout', text, { maxMs: MAX_TIMEOUT_MS });
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
