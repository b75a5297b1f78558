// How a transfer is shown: its fields (`get`, `send`) and the columns of `ls`.
import { addressCell, type ShowAddress } from '../../io/addresses.js';
import { colourStatus, type Palette } from '../../io/colors.js';
import { addressColumn, amountColumn, idColumn, timeColumn } from '../../io/columns.js';
import type { Column } from '../../io/render.js';

export const TRANSFER_STATUSES: readonly string[] = ['pending', 'confirmed', 'failed'];
export { colourStatus };

const yesNo = (v: unknown) => (v === true ? 'yes' : v === false ? 'no' : '');
const orDash = (v: unknown) => (v === null || v === undefined || v === '' ? '-' : String(v));

const asIs: ShowAddress = (t) => t;

/**
 * Fields of one transfer. The service never returns an amount: `Amount`/`Memo` appear only
 * when the renderer was given them after local decryption (`get`), never for `send`. `show`
 * writes 0x addresses for a person (addressDisplay: EIP-55 on a terminal).
 */
export function transferFields(p: Palette, now: () => number, show: ShowAddress = asIs): Column[] {
  return [
    { key: 'transfer_id', header: 'Transfer ID' },
    { key: 'status', header: 'Status', format: (v) => colourStatus(p, v) },
    { key: 'from', header: 'From', format: addressCell(show) },
    { key: 'to', header: 'To', format: addressCell(show) },
    amountColumn('amount', 'Amount', 'asset'),
    { key: 'asset', header: 'Asset', only: 'tsv' },
    { key: 'memo', header: 'Memo' },
    { key: 'confidential', header: 'Confidential', format: yesNo },
    { key: 'tx_hash', header: 'TX hash', format: orDash },
    timeColumn('created_at', 'Created', now),
    timeColumn('confirmed_at', 'Confirmed', now),
    // Only on a transfer `send --wait` followed through a human's approval: what it was held as.
    { key: 'transaction_id', header: 'Held as' },
  ];
}

/**
 * Columns of `svc transfer ls`; TSV uses the keys as its header. At 80 columns the hash goes
 * first, then the confidential flag, the sender and the time (docs/ux.md).
 */
export function transferColumns(p: Palette, now: () => number, show: ShowAddress = asIs): Column[] {
  return [
    idColumn('transfer_id', 'ID'),
    { key: 'status', header: 'STATUS', format: (v) => colourStatus(p, v) },
    addressColumn('to', 'TO', { format: addressCell(show) }),
    addressColumn('from', 'FROM', { format: addressCell(show, '-'), drop: 3 }),
    { key: 'asset', header: 'ASSET', only: 'tsv' },
    amountColumn('amount', 'AMOUNT', 'asset'),
    { key: 'confidential', header: 'CONFIDENTIAL', format: yesNo, drop: 2 },
    timeColumn('created_at', 'CREATED', now, { drop: 4 }),
    idColumn('tx_hash', 'TX HASH', { format: orDash, drop: 1 }),
  ];
}
