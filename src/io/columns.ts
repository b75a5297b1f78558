// Kinds of columns every command uses the same way (docs/ux.md): ids are whole or not shown (what
// is on screen can be pasted back), addresses shrink in the middle, free text at the end, times
// are relative on a terminal, amounts align on the right.
// TSV and JSON never see these formats: they get the service's values.
import type { Column, Row } from './render.js';
import { relativeTime } from './time.js';

type More = Partial<Omit<Column, 'key' | 'header'>>;

/**
 * Ids and hashes: never cut, as a person pastes them back into `get`, `approve`, `revoke` ...
 * (`tr_5cD…Gpcv` would be no id at all). A table too narrow drops other columns first; a
 * droppable id column goes whole (docs/ux.md, Ids).
 */
export function idColumn(key: string, header: string, more: Omit<More, 'shrink' | 'min'> = {}): Column {
  return { key, header, ...more };
}

/** Handles and 0x addresses: `0x7a3f…91c2`, `@acme/pay…ot`. */
export function addressColumn(key: string, header: string, more: More = {}): Column {
  return { key, header, shrink: 'middle', min: 13, ...more };
}

/** Names, memos, URLs: cut at the end. */
export function textColumn(key: string, header: string, more: More = {}): Column {
  return { key, header, shrink: 'end', min: 8, ...more };
}

/** `3m ago`, `in 8m` against `now` (the service's clock); `-` when unset. */
export function timeColumn(key: string, header: string, now: () => number, more: More = {}): Column {
  return { key, header, format: (v) => (typeof v === 'string' && v ? relativeTime(v, now()) : '-'), ...more };
}

/** `12.50 USDG`: the row's amount (or `encrypted`, `-`) with its asset, right-aligned. */
export function amountColumn(key: string, header: string, assetKey: string, more: More = {}): Column {
  return {
    key,
    header,
    align: 'right',
    amount: true,
    format: (v: unknown, row: Row) => {
      const text = v === null || v === undefined || v === '' ? '-' : String(v);
      return /^-?\d+(\.\d+)?$/.test(text) && typeof row[assetKey] === 'string' ? `${text} ${row[assetKey]}` : text;
    },
    ...more,
  };
}
