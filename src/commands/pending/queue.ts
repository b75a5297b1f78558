// Fetching the queue and describing one held transaction for a human.
import type { App } from '../../app.js';
import { listOf, PendingTransactionSchema, type PendingTransaction } from '../../api/schemas.js';
import { DEFAULT_ASSET } from '../../domain/assets.js';

export interface Queue {
  items: PendingTransaction[];
  /** serverNow - localNow, so time left follows the service's clock (the sandbox's can be advanced). */
  skewMs: number;
}

export async function fetchQueue(app: App): Promise<Queue> {
  const client = await app.client();
  const res = await client.get('/v1/agents/transactions/pending', { schema: listOf('pending', PendingTransactionSchema) });
  const skewMs = res.serverTime && !Number.isNaN(res.serverTime.getTime()) ? res.serverTime.getTime() - Date.now() : 0;
  const items = [...res.data.items].sort((a, b) => Date.parse(a.expires_at) - Date.parse(b.expires_at));
  return { items, skewMs };
}

export function timeLeft(expiresAt: string, skewMs: number, now = Date.now()): string {
  const ms = Date.parse(expiresAt) - (now + skewMs);
  if (ms <= 0) return 'expired';
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}m${String(s % 60).padStart(2, '0')}s`;
}

/** The memo decrypted locally; "encrypted" when it cannot be read; undefined when there is none. */
export async function memoOf(app: App, tx: PendingTransaction): Promise<string | undefined> {
  const ct = (tx as Record<string, unknown>).memo_ciphertext;
  if (typeof ct !== 'string') return undefined;
  const reader = await app.reader();
  return reader?.heldMemo(tx.transaction_id, ct) ?? 'encrypted';
}

/** The amount decrypted locally, or "encrypted" when there is no key or no ciphertext. */
export async function amountOf(app: App, tx: PendingTransaction): Promise<string> {
  const reader = await app.reader();
  const asset = typeof tx.asset === 'string' ? tx.asset : DEFAULT_ASSET;
  const amount = reader?.heldAmount(tx.transaction_id, asset, tx.amount_ciphertext);
  return amount === undefined ? 'encrypted' : `${amount} ${asset}`;
}
