// What several `svc transfer` verbs share: the record fields, waiting for settlement, durations.
import type { App } from '../../app.js';
import type { ApiClient } from '../../api/client.js';
import { TransferSchema, type Transfer } from '../../api/schemas.js';
import { CliError, UsageError } from '../../errors.js';
import { DEFAULT_ASSET } from '../../domain/assets.js';
import { DURATION_RULE, formatDuration, parseDuration } from '../../domain/duration.js';
import type { Palette } from '../../io/colors.js';
import type { Column } from '../../io/render.js';
import { startSpinner } from '../../io/spinner.js';

/** Statuses after which a transfer never changes again. */
export const FINAL_STATUSES: readonly string[] = ['confirmed', 'failed'];
export const TRANSFER_STATUSES: readonly string[] = ['pending', 'confirmed', 'failed'];

/** Poll interval of --wait, in real time. */
export const POLL_INTERVAL_MS = 250;
export const DEFAULT_WAIT_MS = 120_000;
const MAX_WAIT_MS = 24 * 3_600_000;

export function transferPath(id: string): string {
  return `/v1/transfers/${encodeURIComponent(id)}`;
}

/** Checks a transfer id given on the command line (the server decides whether it exists). */
export function checkTransferId(id: string): string {
  const trimmed = id.trim();
  if (!trimmed || trimmed.length > 200 || /[\s/?#]/.test(trimmed)) {
    throw new UsageError(`transfer id "${id}" is invalid: it must be a single word such as tr_1a2b3c`);
  }
  return trimmed;
}

export function colourStatus(p: Palette, status: unknown): string {
  const s = String(status ?? '');
  if (s === 'confirmed' || s === 'approved') return p.green(s);
  if (s === 'failed' || s === 'rejected' || s === 'expired') return p.red(s);
  if (s === 'pending' || s === 'pending_approval') return p.yellow(s);
  return s;
}

const yesNo = (v: unknown) => (v === true ? 'yes' : v === false ? 'no' : '');
const orDash = (v: unknown) => (v === null || v === undefined || v === '' ? '-' : String(v));

/**
 * Fields of one transfer. The service never returns an amount: `Amount`/`Memo` appear only
 * when the renderer was given them after local decryption (`get`), never for `send`.
 */
export function transferFields(p: Palette): Column[] {
  return [
    { key: 'transfer_id', header: 'Transfer ID' },
    { key: 'status', header: 'Status', format: (v) => colourStatus(p, v) },
    { key: 'from', header: 'From' },
    { key: 'to', header: 'To' },
    { key: 'asset', header: 'Asset' },
    { key: 'amount', header: 'Amount' },
    { key: 'memo', header: 'Memo' },
    { key: 'confidential', header: 'Confidential', format: yesNo },
    { key: 'tx_hash', header: 'TX hash', format: orDash },
    { key: 'created_at', header: 'Created', format: orDash },
    { key: 'confirmed_at', header: 'Confirmed', format: orDash },
  ];
}

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
export async function openerFor(app: App, items: readonly Transfer[]): Promise<Opener> {
  const needed = items.some((t) => t.amount_ciphertext || t.memo_ciphertext);
  const reader = needed ? await app.reader() : undefined;
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

/** `0x12345678…9abc` on a terminal; TSV and JSON keep the full hash. */
export function shortHash(v: unknown): string {
  const s = String(v ?? '');
  if (!s) return '-';
  return s.length > 16 ? `${s.slice(0, 10)}…${s.slice(-4)}` : s;
}

/** `2024-05-01 12:30:05Z` on a terminal. */
export function shortTime(v: unknown): string {
  if (typeof v !== 'string' || !v) return '-';
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})$/.exec(v);
  return m ? `${m[1]} ${m[2]}${m[3]}` : v;
}

/** Columns of `svc transfer ls`; TSV uses the keys as its header. */
export function transferColumns(p: Palette): Column[] {
  return [
    { key: 'transfer_id', header: 'ID' },
    { key: 'status', header: 'STATUS', format: (v) => colourStatus(p, v) },
    { key: 'to', header: 'TO' },
    { key: 'from', header: 'FROM', format: orDash },
    { key: 'asset', header: 'ASSET', format: orDash },
    { key: 'amount', header: 'AMOUNT' },
    { key: 'confidential', header: 'CONFIDENTIAL', format: yesNo },
    { key: 'created_at', header: 'CREATED', format: shortTime },
    { key: 'tx_hash', header: 'TX HASH', format: shortHash },
  ];
}

/** Parses a --timeout-wait value (`90s`, `2m`, `1m30s`; a unit is required) into milliseconds. */
export function parseWaitDuration(text: string | undefined, flag = '--timeout-wait'): number {
  if (text === undefined) return DEFAULT_WAIT_MS;
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0 || ms > MAX_WAIT_MS) {
    throw new UsageError(`${flag} "${text}" ${ms === undefined ? DURATION_RULE : 'must be more than 0 and at most 24h'}`);
  }
  return ms;
}

/**
 * Polls GET /v1/transfers/{id} until the transfer is confirmed or failed, with a spinner on
 * stderr (animated only on a terminal). Throws a timeout error (exit 7) when `timeoutMs` passes.
 */
export async function waitForTransfer(app: App, client: ApiClient, id: string, timeoutMs: number): Promise<Transfer> {
  const { clock } = app;
  const started = clock.now();
  const deadline = started + timeoutMs;
  const spinner = startSpinner(app.io, `waiting for transfer ${id} to settle (up to ${formatDuration(timeoutMs)})…`, { quiet: app.json, env: app.env });
  try {
    for (;;) {
      const { data } = await client.get(transferPath(id), { schema: TransferSchema });
      if (FINAL_STATUSES.includes(data.status)) return data;
      const elapsed = Math.round((clock.now() - started) / 1000);
      spinner.update(`waiting for transfer ${id} to settle: ${data.status}, ${elapsed} s`);
      const left = deadline - clock.now();
      if (left <= 0) {
        throw new CliError('network', 'wait_timeout', `gave up waiting for transfer ${id} after ${formatDuration(timeoutMs)}: it is still ${data.status}`, {
          hint: `it may still settle; check it with \`svc transfer get ${id} --wait\``,
          details: { transfer_id: id },
        });
      }
      await clock.sleep(Math.min(POLL_INTERVAL_MS, left));
    }
  } finally {
    spinner.stop();
  }
}

/** The error for a transfer that ended `failed` (exit 1). */
export function failedTransferError(t: Transfer): CliError {
  return new CliError('failure', 'transfer_failed', `transfer ${t.transfer_id} failed: it did not settle on chain and no funds moved`, {
    ...(t.tx_hash ? { hint: `transaction ${t.tx_hash}` } : {}),
    details: { transfer_id: t.transfer_id },
  });
}
