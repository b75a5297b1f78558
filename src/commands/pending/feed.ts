// The approval queue as `pending review` follows it: read again and again, it says which
// transactions are newly held (for the bell and --notify-command) and what is left to show. A read
// that fails for a transient reason (no connection, no answer in time, 429, 5xx: the service
// restarting) is worth trying again after a pause that doubles from 1s to 30s; anything else (401,
// 403, a bad answer) is not, and ends the review with its error.
import type { Needs } from '../../runtime/factory.js';
import type { PendingTransaction } from '../../api/schemas.js';
import { ApiError, NetworkError } from '../../errors.js';
import { approverNow, fetchApproverQueue, fetchQueue, type Queue } from './queue.js';

export const RECONNECT_FIRST_MS = 1_000;
export const RECONNECT_MAX_MS = 30_000;

/** The pause before try number `failures + 1`: 1s, 2s, 4s … 30s, 30s … */
export function reconnectDelay(failures: number): number {
  return Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** Math.min(Math.max(failures - 1, 0), 15));
}

/** Whether trying again later may succeed: the service unreachable, slow, busy or failing. */
export function isTransient(err: unknown): boolean {
  if (err instanceof NetworkError) return true;
  return err instanceof ApiError && (err.status === 429 || err.status >= 500);
}

/** A failure in a few words for the status line: `network_error`, `HTTP 503`. */
export function faultText(err: unknown): string {
  if (err instanceof ApiError) return `HTTP ${err.status}, ${err.code}`;
  if (err instanceof NetworkError) return err.code;
  return 'failed';
}

export interface QueueFeed {
  /** The queue as last read, soonest to expire first (empty before the first read). */
  readonly latest: Queue;
  /**
   * Reads the queue (the first read tells an agent's key why it has none). Transactions seen for
   * the first time after the first read go to `onNew`. Throws what the read threw.
   */
  read(): Promise<Queue>;
  /** Whether the id is in the latest read. */
  has(id: string): boolean;
  /** The items of the latest read not in `seen` and not expired by the service's clock. */
  unseen(seen: ReadonlySet<string>): PendingTransaction[];
}

export function queueFeed(ctx: Needs<'account' | 'client' | 'serviceClock'>, onNew: (txs: PendingTransaction[]) => void): QueueFeed {
  let latest: Queue = { items: [] };
  const known = new Set<string>();
  let reads = 0;
  return {
    get latest() {
      return latest;
    },
    async read() {
      const queue = reads === 0 ? await fetchApproverQueue(ctx) : await fetchQueue(ctx);
      const fresh = queue.items.filter((tx) => !known.has(tx.transaction_id));
      for (const tx of fresh) known.add(tx.transaction_id);
      latest = queue;
      if (reads++ > 0 && fresh.length > 0) onNew(fresh);
      return queue;
    },
    has: (id) => latest.items.some((tx) => tx.transaction_id === id),
    unseen(seen) {
      const now = approverNow(ctx);
      return latest.items.filter((tx) => !seen.has(tx.transaction_id) && !(Date.parse(tx.expires_at) <= now));
    },
  };
}
