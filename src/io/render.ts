// Output renderers: a table on a terminal, TSV when piped, one JSON document with --json.
// Lists stream: rows are written as they arrive, so memory stays constant for any length.
// Every string value is sanitised here (the one place), so no caller can forget it.
import { safeJson, sanitize } from './sanitize.js';
import type { IOStreams } from './streams.js';

export type Row = Record<string, unknown>;
export interface Column {
  key: string;
  header: string;
  /** Formats the cell for a human; TSV and JSON use the raw value. */
  format?: (value: unknown, row: Row) => string;
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
    for (const f of fields) if (record[f.key] !== undefined) io.out(`${f.key}\t${rawCell(record[f.key])}\n`);
    return;
  }
  const width = Math.max(...fields.map((f) => f.header.length));
  const row = cleanRow(record);
  for (const f of fields) {
    if (row[f.key] === undefined) continue;
    io.out(`${f.header.padEnd(width)}  ${humanCell(f, row)}\n`);
  }
}

export interface ListWriterOptions {
  /** JSON mode: one object per line (JSON Lines) instead of one array. */
  jsonLines?: boolean;
}

/**
 * A streaming list writer. JSON mode writes one array incrementally (or, with `jsonLines`, one
 * object per line); TSV writes a header then a line per row; table mode buffers one page, sizes
 * columns, and prints it. Each write() is one chunk on stdout.
 */
export class ListWriter {
  private count = 0;
  private pending: Row[] = [];
  private readonly jsonLines: boolean;
  constructor(
    private readonly io: IOStreams,
    private readonly mode: OutputMode,
    private readonly columns: Column[],
    opts: ListWriterOptions = {},
  ) {
    this.jsonLines = mode === 'json' && Boolean(opts.jsonLines);
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
        if (this.count === 0) chunk += `${this.columns.map((c) => c.key).join('\t')}\n`;
        chunk += `${this.columns.map((c) => rawCell(row[c.key])).join('\t')}\n`;
        this.count++;
      }
      if (chunk) this.io.out(chunk);
      return;
    }
    this.pending.push(...rows);
    this.count += rows.length;
    this.flushTable();
  }

  private flushTable(): void {
    if (this.pending.length === 0) return;
    const cells = this.pending.map((row) => {
      const safe = cleanRow(row);
      return this.columns.map((c) => humanCell(c, safe));
    });
    const headers = this.columns.map((c) => c.header);
    // Later pages keep the widths seen so far, so columns stay aligned across pages of `--all`.
    const widths = headers.map((h, i) => Math.max(this.widths[i] ?? 0, visibleLength(h), ...cells.map((r) => visibleLength(r[i]!))));
    this.widths = widths;
    let chunk = '';
    if (!this.headerPrinted) {
      chunk += `${headers.map((h, i) => h.padEnd(widths[i]!)).join('  ').trimEnd()}\n`;
      this.headerPrinted = true;
    }
    for (const r of cells) chunk += `${r.map((c, i) => padVisible(c, widths[i]!)).join('  ').trimEnd()}\n`;
    this.io.out(chunk);
    this.pending = [];
  }
  private headerPrinted = false;
  private widths: number[] = [];

  /** Finishes the document; returns how many rows were written. */
  end(emptyMessage = 'No results.'): number {
    if (this.jsonLines) return this.count; // an empty list is no line at all
    if (this.mode === 'json') this.io.out(this.count === 0 ? '[]\n' : '\n]\n');
    else if (this.mode === 'tsv' && this.count === 0) this.io.out(`${this.columns.map((c) => c.key).join('\t')}\n`);
    else if (this.mode === 'table' && this.count === 0) this.io.err(`${emptyMessage}\n`);
    return this.count;
  }
}

// eslint-disable-next-line no-control-regex
const ANSI_RE = /\u001b\[[0-9;]*m/g;
function visibleLength(s: string): number {
  return s.replace(ANSI_RE, '').length;
}
function padVisible(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - visibleLength(s)));
}

/** Renders a whole list at once (small lists). */
export function printList(io: IOStreams, mode: OutputMode, rows: readonly Row[], columns: Column[], emptyMessage?: string): void {
  const w = new ListWriter(io, mode, columns);
  w.write(rows);
  w.end(emptyMessage);
}
