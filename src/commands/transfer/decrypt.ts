// Local decryption of the amounts and memos in transfers, and the rows it gives the renderers.
import type { Needs } from '../../runtime/factory.js';
import type { Transfer } from '../../api/schemas.js';
import { DEFAULT_ASSET } from '../../domain/assets.js';

export const ENCRYPTED = 'encrypted';

/** What local decryption gives for one transfer (null: not readable here). */
export interface Opened {
  amount: string | null;
  memo: string | null;
}
export type Opener = (t: Transfer) => Opened;

/**
 * Opens `amount_ciphertext` / `memo_ciphertext` (sandbox extension fields, encrypted to the
 * reader's viewing key) with the configured decryption key, locally. The decryption key (and
 * the extra account lookup it needs) is loaded only when some transfer carries a ciphertext.
 */
export async function openerFor(ctx: Needs<'reader'>, items: readonly Transfer[]): Promise<Opener> {
  const needed = items.some((t) => t.amount_ciphertext || t.memo_ciphertext);
  const reader = needed ? await ctx.reader() : undefined;
  return (t) => ({
    amount: (reader && t.amount_ciphertext ? reader.transferAmount(t.transfer_id, t.asset ?? DEFAULT_ASSET, t.amount_ciphertext) : undefined) ?? null,
    memo: (reader && t.memo_ciphertext ? reader.transferMemo(t.transfer_id, t.memo_ciphertext) : undefined) ?? null,
  });
}

/**
 * The row a renderer gets. Table and TSV always carry `amount` (the amount when it opens here,
 * `encrypted` otherwise, `-` for a standard transfer) and `memo` when there is one. JSON stays
 * the service's object; `--decrypt` adds `amount` and `memo` where they open here (docs/json.md).
 */
export function withOpened(t: Transfer, opened: Opened, mode: 'json' | 'table' | 'tsv', decrypt: boolean): Transfer {
  if (mode === 'json') {
    if (!decrypt) return t;
    return { ...t, ...(opened.amount !== null ? { amount: opened.amount } : {}), ...(opened.memo !== null ? { memo: opened.memo } : {}) };
  }
  // A standard transfer's amount is public on chain but still not returned by the service.
  const row: Transfer = { ...t, amount: opened.amount ?? (t.confidential === false ? '-' : ENCRYPTED) };
  if (opened.memo !== null || t.memo_ciphertext) row.memo = opened.memo ?? ENCRYPTED;
  return row;
}
