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

/** What local decryption opens of a held transaction (absent: not readable here, or none). */
export interface OpenedHeld {
  amount?: string;
  memo?: string;
  /** The transaction carries a memo, whether or not it opened. */
  hasMemo: boolean;
}

export async function openHeld(app: App, tx: PendingTransaction): Promise<OpenedHeld> {
  const memoCt = (tx as Record<string, unknown>).memo_ciphertext;
  const hasMemo = typeof memoCt === 'string';
  if (!tx.amount_ciphertext && !hasMemo) return { hasMemo };
  const reader = await app.reader();
  const amount = tx.amount_ciphertext ? reader?.heldAmount(tx.transaction_id, assetOf(tx), tx.amount_ciphertext) : undefined;
  const memo = hasMemo ? reader?.heldMemo(tx.transaction_id, memoCt) : undefined;
  return { hasMemo, ...(amount !== undefined ? { amount } : {}), ...(memo !== undefined ? { memo } : {}) };
}

export function assetOf(tx: PendingTransaction): string {
  return typeof tx.asset === 'string' ? tx.asset : DEFAULT_ASSET;
}

/** The amount for a human: `12.50 USDG`, or `encrypted`. */
export function shownAmount(tx: PendingTransaction, opened: OpenedHeld): string {
  return opened.amount === undefined ? 'encrypted' : `${opened.amount} ${assetOf(tx)}`;
}

/** The memo for a human: the text, `encrypted`, or undefined when there is none. */
export function shownMemo(opened: OpenedHeld): string | undefined {
  if (!opened.hasMemo) return undefined;
  return opened.memo ?? 'encrypted';
}
