// How a transfer is shown: its fields (`get`, `send`) and the columns of `ls`.
import type { Palette } from '../../io/colors.js';
import type { Column } from '../../io/render.js';

export const TRANSFER_STATUSES: readonly string[] = ['pending', 'confirmed', 'failed'];

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
