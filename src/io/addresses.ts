// How 0x addresses are shown to people: in their EIP-55 mixed-case form (docs/ux.md, Addresses),
// in tables, records and receipts on a terminal. TSV and JSON keep the service's text, so the
// hash behind the checksum (keccak, src/domain/eip55.ts) is loaded only for a human's output.
import type { OutputMode } from './render.js';

/** A 0x address of 40 hex digits → its EIP-55 form; any other text (a handle) unchanged. */
export type ShowAddress = (text: string) => string;

const asIs: ShowAddress = (text) => text;

/** The address formatter for this output: EIP-55 for a table or record, the text as is otherwise. */
export async function addressDisplay(mode: OutputMode): Promise<ShowAddress> {
  if (mode !== 'table') return asIs;
  const { displayAddress } = await import('../domain/eip55.js');
  return displayAddress;
}

/** A cell formatter showing addresses in EIP-55 form (values are strings; anything else as text). */
export function addressCell(show: ShowAddress, fallback = ''): (value: unknown) => string {
  return (v) => (typeof v === 'string' && v !== '' ? show(v) : v === null || v === undefined || v === '' ? fallback : String(v));
}
