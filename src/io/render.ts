// Output renderers: a table on a terminal, TSV when piped, one JSON document with --json.
// Lists stream: rows are written as they arrive, so memory stays constant for any length.
// Every string value is sanitised here (the one place), so no caller can forget it.
// Tables fit the terminal (table.ts, loaded only in table mode); docs/ux.md is the contract.
import { safeJson, sanitize } from './sanitize.js';
import type { IOStreams } from './streams.js';
import { fitCell, fitColumns, renderRows, textWidth, type Layout, type TableColumn } from './table.js';
import { wrap } from './wrap.js';

export type Row = Record<string, unknown>;
export interface Column extends TableColumn {
  key: string;
  header: string;
  /** Formats the cell for a human; TSV and JSON use the raw value. */
  format?: (value: unknown, row: Row) => string;
  /** Amount cells (`12.5 USDG`): right-aligned, every row with the same number of decimals. */
  amount?: boolean;
  /** Only in the table (a human form of other columns), or only in TSV (the table shows it elsewhere). */
  only?: 'table' | 'tsv';
}
export type OutputMode = 'json' | 'table' | 'tsv';

export function outputMode(io: IOStreams, json: boolean): OutputMode {
  if (json) return 'json';
  return io.stdoutIsTTY ? 'table' : 'tsv';
}

/** A value as a cell of text: sanitised, one line. */
function rawCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return sanitize(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

/** Strings (also inside arrays) with every unsafe character escaped, before a formatter sees them. */
function clean(value: unknown): unknown {
  if (typeof value === 'string') return sanitize(value);
  if (Array.isArray(value)) return value.map(clean);
  return value;
}

function cleanRow(row: Row): Row {
  const out: Row = {};
  for (const k in row) out[k] = clean(row[k]);
  return out;
}

/** A cell for a human: the column's formatter over sanitised values, or the raw cell. */
function humanCell(column: Column, row: Row): string {
  const v = row[column.key];
  return column.format ? column.format(v, row) : rawCell(v);
}

/** Prints one JSON document, pretty on a terminal, compact when piped; no raw control character. */
export function printJson(io: IOStreams, value: unknown): void {
  io.out(`${safeJson(value, io.stdoutIsTTY ? 2 : undefined)}\n`);
}

/** Prints a single resource as aligned `key  value` lines (or TSV pairs / JSON). */
export function printRecord(io: IOStreams, mode: OutputMode, record: Row, fields: Column[]): void {
  if (mode === 'json') return printJson(io, record);
  if (mode === 'tsv') {
    for (const f of fields) if (f.only !== 'table' && record[f.key] !== undefined) io.out(`${f.key}\t${rawCell(record[f.key])}\n`);
    return;
  }
  const shown = fields.filter((f) => f.only !== 'tsv');
  const width = Math.max(...shown.map((f) => f.header.length));
  const row = cleanRow(record);
  for (const f of shown) {
    if (row[f.key] === undefined) continue;
    const cell = humanCell(f, row);
    io.out(`${f.header.padEnd(width)}  ${f.amount ? padDecimals(cell, Math.max(MIN_DECIMALS, decimalsOf(cell))) : cell}\n`);
  }
}

export interface ListWriterOptions {
  /** JSON mode: one object per line (JSON Lines) instead of one array. */
  jsonLines?: boolean;
}

/**
 * A streaming list writer. JSON mode writes one array incrementally (or, with `jsonLines`, one
 * object per line); TSV writes a header then a line per row; table mode lays out each page to
 * fit the terminal (the first page decides which columns show; widths only grow after it, so
 * pages stay aligned). Each write() is one chunk on stdout.
 */
export class ListWriter {
  private count = 0;
  private readonly jsonLines: boolean;
  private readonly tsvColumns: Column[];
  private readonly tableColumns: Column[];
  private layout: Layout | undefined;
  /** Per table column: the widest content seen, and the most decimals of an amount column. */
  private natural: number[] = [];
  private decimals: number[] = [];

  constructor(
    private readonly io: IOStreams,
    private readonly mode: OutputMode,
    columns: Column[],
    opts: ListWriterOptions = {},
  ) {
    this.jsonLines = mode === 'json' && Boolean(opts.jsonLines);
    this.tsvColumns = columns.filter((c) => c.only !== 'table');
    this.tableColumns = columns.filter((c) => c.only !== 'tsv');
  }

  /** Writes a batch (one page) of rows. */
  write(rows: readonly Row[]): void {
    if (this.mode === 'json') {
      let chunk = '';
      for (const row of rows) {
        chunk += this.jsonLines ? `${safeJson(row)}\n` : `${this.count === 0 ? '[' : ','}\n${safeJson(row)}`;
        this.count++;
      }
      if (chunk) this.io.out(chunk);
      return;
    }
    if (this.mode === 'tsv') {
      let chunk = '';
      for (const row of rows) {
        if (this.count === 0) chunk += `${this.tsvColumns.map((c) => c.key).join('\t')}\n`;
        chunk += `${this.tsvColumns.map((c) => rawCell(row[c.key])).join('\t')}\n`;
        this.count++;
      }
      if (chunk) this.io.out(chunk);
      return;
    }
    if (rows.length === 0) return;
    this.count += rows.length;
    this.writeTable(rows);
  }

  private writeTable(rows: readonly Row[]): void {
    const columns = this.tableColumns;
    const cells = rows.map((row) => {
      const safe = cleanRow(row);
      return columns.map((c) => humanCell(c, safe));
    });
    columns.forEach((c, i) => {
      if (!c.amount) return;
      this.decimals[i] = Math.max(this.decimals[i] ?? MIN_DECIMALS, ...cells.map((r) => decimalsOf(r[i]!)));
      for (const r of cells) r[i] = padDecimals(r[i]!, this.decimals[i]!);
    });
    this.natural = columns.map((c, i) => Math.max(this.natural[i] ?? textWidth(c.header), ...cells.map((r) => textWidth(r[i]!))));
    const first = this.layout === undefined;
    if (first) {
      this.layout = fitColumns(columns, this.natural, this.io.columns);
    } else {
      // Later pages keep the columns chosen; only the widths may grow.
      const shown = this.layout!.shown;
      const fitted = fitColumns(shown.map((i) => ({ ...columns[i]!, drop: undefined })), shown.map((i) => this.natural[i]!), this.io.columns);
      this.layout = { shown, widths: fitted.widths.map((w, k) => Math.max(w, this.layout!.widths[k]!)) };
    }
    const { shown, widths } = this.layout!;
    const lines = cells.map((r) => shown.map((i, k) => fitCell(r[i]!, columns[i]!, widths[k]!)));
    this.io.out(renderRows(columns, this.layout!, lines, first));
  }

  /** Columns the terminal had no room for are named (on stderr), with where to see them. */
  private noteDropped(): void {
    const shown = new Set(this.layout?.shown ?? []);
    const dropped = this.tableColumns.filter((_c, i) => !shown.has(i)).map((c) => c.header);
    if (dropped.length === 0) return;
    this.io.err(`${wrap(`${dropped.join(', ')} not shown: widen the terminal or use --json`, this.io.columns).join('\n')}\n`);
  }

  /** Finishes the document; returns how many rows were written. */
  end(emptyMessage = 'No results.'): number {
    if (this.jsonLines) return this.count; // an empty list is no line at all
    if (this.mode === 'json') this.io.out(this.count === 0 ? '[]\n' : '\n]\n');
    else if (this.mode === 'tsv' && this.count === 0) this.io.out(`${this.tsvColumns.map((c) => c.key).join('\t')}\n`);
    else if (this.mode === 'table' && this.count === 0) this.io.err(`${emptyMessage}\n`);
    else if (this.mode === 'table') this.noteDropped();
    return this.count;
  }
}

/** Amounts show at least cents (docs/ux.md); more when the column holds more. */
const MIN_DECIMALS = 2;
const AMOUNT_RE = /^(-?\d+)(?:\.(\d+))?((?: \S+)?)$/;

function decimalsOf(cell: string): number {
  const m = AMOUNT_RE.exec(cell);
  return m ? (m[2] ?? '').length : 0;
}

/** `12.5 USDG` → `12.50 USDG` for 2: zeros appended, never a digit removed (exact). */
function padDecimals(cell: string, decimals: number): string {
  const m = AMOUNT_RE.exec(cell);
  if (!m) return cell; // `encrypted`, `-`
  const frac = (m[2] ?? '').padEnd(decimals, '0');
  return `${m[1]}.${frac}${m[3]}`;
}

/** Renders a whole list at once (small lists). */
export function printList(io: IOStreams, mode: OutputMode, rows: readonly Row[], columns: Column[], emptyMessage?: string): void {
  const w = new ListWriter(io, mode, columns);
  w.write(rows);
  w.end(emptyMessage);
}
