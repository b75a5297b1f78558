// A table that fits the terminal (docs/ux.md): columns shrink (addresses in the middle, text at
// the end), then the least useful ones are dropped, and no line is wider than the terminal. Ids
// never shrink: what is on screen is pasted back into a command, so an id is whole or not shown. Layout is cli-table3's, borderless; widths are display widths (string-width), so
// wide characters and colour codes are measured as they look. Loaded only in table mode.
import type CliTable3 from 'cli-table3';
import type stringWidthFn from 'string-width';
import { cliTable3, stringWidth } from './table-libs.js';

/** What the layout needs to know about a column. */
export interface TableColumn {
  header: string;
  /**
   * How a cell may be shortened: `middle` keeps both ends (addresses, handles), `end` keeps the
   * start. Without it a cell is never cut (ids, hashes, amounts, statuses).
   */
  shrink?: 'middle' | 'end';
  /** Narrowest a shrinking column gets (default: its header, and at least 6). */
  min?: number;
  /** When shrinking is not enough, columns go in increasing order of this (undefined: kept). */
  drop?: number;
  align?: 'right';
}

export interface Layout {
  /** Indexes of the columns shown, in order. */
  shown: number[];
  /** Width of each shown column, in the same order. */
  widths: number[];
}

export const GAP = 2;

let width: typeof stringWidthFn | undefined;
let Table: typeof CliTable3 | undefined;

/** Display width of a cell (colour codes take none, wide characters two). */
export function textWidth(text: string): number {
  width ??= stringWidth();
  return width(text);
}

function floorOf(c: TableColumn): number {
  return Math.max(c.min ?? 6, textWidth(c.header));
}

/** How far a shrinkable column goes when nothing is left to drop, before a line would wrap. */
const LAST_RESORT = 8;
function lastFloorOf(c: TableColumn): number {
  return Math.max(LAST_RESORT, textWidth(c.header));
}

const total = (widths: readonly number[]) => widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1);

/**
 * Chooses which columns to show and how wide, for content of `natural` widths in `available`
 * columns of terminal. Shrinks low-value (droppable) columns first, then the others, the widest
 * first; when every shrinkable column is at its floor, drops the droppable column with the
 * lowest `drop` and starts again. With nothing left to drop, shrinkable columns go below their
 * floors (to LAST_RESORT) rather than the line wrapping.
 * Columns that may not shrink (ids, amounts) are never narrowed: an id is shown whole or its
 * column is dropped whole, and a column that may neither shrink nor drop keeps its width even
 * if the line must then wrap: an amount or an id is never cut (docs/ux.md).
 */
export function fitColumns(columns: readonly TableColumn[], natural: readonly number[], available: number): Layout {
  let shown = columns.map((_, i) => i);
  for (;;) {
    const widths = shown.map((i) => natural[i]!);
    const over = shrink(columns, shown, widths, total(widths) - available, floorOf);
    if (over <= 0) return { shown, widths };
    const droppable = shown.filter((i) => columns[i]!.drop !== undefined);
    if (droppable.length === 0) {
      shrink(columns, shown, widths, over, lastFloorOf);
      return { shown, widths };
    }
    const victim = droppable.reduce((a, b) => (columns[b]!.drop! < columns[a]!.drop! ? b : a));
    shown = shown.filter((i) => i !== victim);
  }
}

/**
 * Takes up to `over` columns of width from the shrinkable columns (in place), none below
 * `floor`: low-value (droppable) ones first, the widest first, evenly. Returns what is left over.
 */
function shrink(columns: readonly TableColumn[], shown: readonly number[], widths: number[], over: number, floor: (c: TableColumn) => number): number {
  while (over > 0) {
    let best = -1;
    let lowValue = false;
    for (let k = 0; k < shown.length; k++) {
      const c = columns[shown[k]!]!;
      if (!c.shrink || widths[k]! <= floor(c)) continue;
      const low = c.drop !== undefined;
      if (best === -1 || (low && !lowValue) || (low === lowValue && widths[k]! > widths[best]!)) {
        best = k;
        lowValue = low;
      }
    }
    if (best === -1) break;
    const peers = shown.map((i, k) => (k !== best && (columns[i]!.drop !== undefined) === lowValue && columns[i]!.shrink ? widths[k]! : 0));
    const step = Math.min(over, widths[best]! - floor(columns[shown[best]!]!), Math.max(1, widths[best]! - Math.max(...peers)));
    widths[best]! -= step;
    over -= step;
  }
  return over;
}

/** Keeps both ends: `0x7a3f…91c2`, `@acme/pay…ot` (addresses are told apart by both). */
export function truncateMiddle(text: string, max: number): string {
  if (textWidth(text) <= max) return text;
  if (max <= 1) return '…'.slice(0, max);
  const chars = [...text];
  const keep = max - 1;
  const tail = Math.max(1, Math.floor(keep / 2) - 1);
  let head = keep - tail;
  // Wide characters: take fewer until it fits.
  for (;;) {
    const out = `${chars.slice(0, head).join('')}…${chars.slice(chars.length - tail).join('')}`;
    if (textWidth(out) <= max || head === 0) return out;
    head--;
  }
}

/** Keeps the start: `invoice for Ma…`. Colour codes are not expected here (plain text columns). */
export function truncateEnd(text: string, max: number): string {
  if (textWidth(text) <= max) return text;
  if (max <= 1) return '…'.slice(0, max);
  let out = '';
  for (const ch of text) {
    if (textWidth(`${out}${ch}…`) > max) break;
    out += ch;
  }
  return `${out}…`;
}

export function fitCell(text: string, column: TableColumn, max: number): string {
  if (textWidth(text) <= max) return text;
  if (column.shrink === 'middle') return truncateMiddle(text, max);
  if (column.shrink === 'end') return truncateEnd(text, max);
  return text; // never cut (ids, amounts): the column was sized for it
}

const NO_BORDERS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '',
  middle: ' '.repeat(GAP),
};

/**
 * Lines of a borderless table (header first when given), each cell already fitted. Trailing
 * spaces are trimmed so a line is never wider than its content.
 */
export function renderRows(columns: readonly TableColumn[], layout: Layout, rows: readonly (readonly string[])[], header: boolean): string {
  Table ??= cliTable3();
  const { shown, widths } = layout;
  const table = new Table({
    chars: NO_BORDERS,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
    colWidths: widths.map((w, k) => Math.max(w, ...rows.map((r) => textWidth(r[k]!)))),
    colAligns: shown.map((i) => columns[i]!.align ?? 'left'),
    wordWrap: false,
  });
  if (header) table.push(shown.map((i) => columns[i]!.header));
  for (const r of rows) table.push([...r]);
  return `${table.toString().split('\n').map((l) => l.trimEnd()).join('\n')}\n`;
}
