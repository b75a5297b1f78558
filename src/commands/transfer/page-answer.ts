// One page of GET /v1/transfers, checked cheaply. zod's TransferSchema on every row of a
// 100,000-row `--all` costs more than everything else the listing does without decryption, so
// the envelope is read by hand and each row gets a few typeof checks that accept only rows the
// schema accepts too. A row that fails them is handed to TransferSchema itself: it either parses
// after all (an unusual but valid row) or gives the same `invalid_response` error as before.
// zod/mini's functions work on any zod 4 schema, classic or mini.
import * as z from 'zod/mini';
import { TRANSFER_STATUSES, TransferSchema, type Transfer } from '../../api/schemas.js';

export interface TransferPage {
  items: Transfer[];
  /** The service's `has_more`, when it says. */
  hasMore?: boolean;
}

const STATUSES: ReadonlySet<string> = new Set(TRANSFER_STATUSES);
/** The very pattern behind TransferSchema's `z.iso.datetime({ offset: true })`. */
const TIMESTAMP = z.regexes.datetime({ offset: true });

const optionalString = (v: unknown) => v === undefined || typeof v === 'string';
const timestamp = (v: unknown) => typeof v === 'string' && TIMESTAMP.test(v);

/**
 * True only for a row TransferSchema accepts unchanged (the converse need not hold: a false
 * here sends the row through the schema). Extra fields are kept, as the loose schema keeps them.
 */
export function isPlainTransfer(v: unknown): v is Transfer {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const t = v as Record<string, unknown>;
  return (
    typeof t.transfer_id === 'string' &&
    typeof t.status === 'string' &&
    STATUSES.has(t.status) &&
    typeof t.to === 'string' &&
    typeof t.confidential === 'boolean' &&
    timestamp(t.created_at) &&
    (t.confirmed_at === undefined || timestamp(t.confirmed_at)) &&
    optionalString(t.from) &&
    optionalString(t.tx_hash) &&
    optionalString(t.asset) &&
    optionalString(t.amount_ciphertext) &&
    optionalString(t.memo_ciphertext)
  );
}

const LIST_RULE = 'expected a list of transfers: an array, {"transfers": [...]} or {"data": [...]}';

/**
 * The answer of GET /v1/transfers, leniently (like listOf): a bare array, `{transfers: [...]}` or
 * `{data: [...]}`, with `has_more` when given. Used as the client's schema, so a malformed answer
 * is the client's usual `invalid_response` error, naming the field (`transfers.3.status: ...`).
 */
export const TransferPageAnswer = z.pipe(z.unknown(), z.transform((value, ctx): TransferPage => {
  let items: unknown[] | undefined;
  let hasMore: boolean | undefined;
  let noun: string | undefined;
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'object' && value !== null) {
    const rec = value as Record<string, unknown>;
    noun = Array.isArray(rec.transfers) ? 'transfers' : Array.isArray(rec.data) ? 'data' : undefined;
    if (noun) items = rec[noun] as unknown[];
    if (typeof rec.has_more === 'boolean') hasMore = rec.has_more;
  }
  if (!items) {
    ctx.issues.push({ code: 'custom', message: LIST_RULE, input: value });
    return z.NEVER;
  }
  for (let i = 0; i < items.length; i++) {
    if (isPlainTransfer(items[i])) continue;
    const parsed = z.safeParse(TransferSchema, items[i]);
    if (parsed.success) {
      items[i] = parsed.data;
      continue;
    }
    const issue = parsed.error.issues[0];
    ctx.issues.push({
      code: 'custom',
      message: issue?.message ?? 'invalid transfer',
      input: items[i],
      path: [...(noun ? [noun] : []), i, ...(issue?.path ?? [])],
    });
    return z.NEVER;
  }
  return hasMore === undefined ? { items: items as Transfer[] } : { items: items as Transfer[], hasMore };
}));
