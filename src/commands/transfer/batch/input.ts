// Reading a payout file, one row at a time: CSV (csv-parse, streaming) or JSON Lines. A batch
// reads its file twice (every row is checked before the first is sent, and rows are not kept in
// memory), so stdin is first copied to a temporary file that has no name: it is unlinked the
// moment it is created and read through its descriptor, so no way out of the process (Ctrl-C,
// SIGTERM, SIGKILL, a crash) leaves the payouts on disk. Every row keeps its line number for
// messages.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, createReadStream, createWriteStream, openSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { UsageError } from '../../../errors.js';

/** The columns a row may have; `to` and `amount` are required. */
export const BATCH_COLUMNS = ['to', 'amount', 'asset', 'memo', 'ref'] as const;
export type BatchColumn = (typeof BATCH_COLUMNS)[number];

export interface InputRow {
  /** Line of the file the row ends on (1 is the CSV header). */
  line: number;
  fields: Partial<Record<BatchColumn, string>>;
  /** A problem found while reading (a number where a string belongs, a bad JSON line). */
  problem?: string;
}

export type BatchFormat = 'csv' | 'jsonl';

export interface BatchFile {
  /** How messages name it: the path given, or `-`. */
  shown: string;
  /** A new stream of its bytes from the start (each read of the batch takes one). */
  open(): Readable;
  /** Closes stdin's copy (nothing for a file). */
  close(): void;
}

function readError(path: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') {
    return new UsageError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : 'permission denied'}`, undefined, 'invalid_batch');
  }
  return err;
}

/**
 * `-` is stdin, copied to a file in the temporary folder (`dir`, default $TMPDIR) that is created
 * exclusively (O_EXCL|O_NOFOLLOW, 0600, an unguessable name: nothing planted there is written
 * through) and unlinked before a byte is written: it holds amounts and memos, and only this
 * process's descriptor reaches it, until close() or the process's end frees it.
 */
export async function openBatchFile(path: string, stdin: Readable, dir = tmpdir()): Promise<BatchFile> {
  if (path !== '-') return { shown: path, open: () => createReadStream(path), close: () => {} };
  const name = join(dir, `svc-batch-${randomBytes(16).toString('hex')}`);
  const fd = openSync(name, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    unlinkSync(name);
    await pipeline(stdin, createWriteStream(name, { fd, autoClose: false }));
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return {
    shown: '-',
    // Positional reads from the start (`start: 0`), leaving the descriptor open for the next read.
    open: () => createReadStream(name, { fd, start: 0, autoClose: false }),
    close: () => closeSync(fd),
  };
}

export interface RowReader {
  rows: AsyncIterable<InputRow>;
  /** The columns present (the CSV header; for JSON Lines, those seen so far). */
  columns(): BatchColumn[];
}

/** Streams the rows of one read of the file. */
export async function readRows(file: BatchFile, format: BatchFormat): Promise<RowReader> {
  // Loaded first: the parser must be attached to the stream in the turn it is opened.
  const parse = format === 'csv' ? (await import('csv-parse')).parse : undefined;
  const source = file.open();
  let columns: BatchColumn[] = [];
  const seen = new Set<BatchColumn>();
  const inner = parse ? csvRows(source, parse, (c) => (columns = c)) : jsonLinesRows(source, seen);
  async function* rows(): AsyncGenerator<InputRow> {
    try {
      yield* inner;
    } catch (err) {
      throw readError(file.shown, err);
    }
    if (parse && columns.length === 0) throw new UsageError('the file is empty: a CSV header line (to,amount[,asset][,memo][,ref]) is required', undefined, 'invalid_batch');
  }
  return {
    rows: rows(),
    columns: () => (parse ? columns : BATCH_COLUMNS.filter((c) => seen.has(c))),
  };
}

function checkColumns(names: readonly string[], where: string): BatchColumn[] {
  const unknown = names.filter((n) => !(BATCH_COLUMNS as readonly string[]).includes(n));
  if (unknown.length) {
    throw new UsageError(`${where}: unknown column ${unknown.map((u) => `"${u}"`).join(', ')}; the columns are ${BATCH_COLUMNS.join(', ')} (to and amount required)`, undefined, 'invalid_batch');
  }
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new UsageError(`${where}: column "${dup}" appears twice`, undefined, 'invalid_batch');
  for (const required of ['to', 'amount'] as const) {
    if (!names.includes(required)) throw new UsageError(`${where}: the "${required}" column is missing (columns: to,amount[,asset][,memo][,ref])`, undefined, 'invalid_batch');
  }
  return names as BatchColumn[];
}

type Parse = typeof import('csv-parse').parse;
type CsvRecord = { record: Record<string, string | undefined>; info: { lines: number; invalid_field_length: number } };

async function* csvRows(source: Readable, parse: Parse, onColumns: (c: BatchColumn[]) => void): AsyncGenerator<InputRow> {
  let columns: BatchColumn[] = [];
  const parser = source.pipe(parse({
    bom: true,
    columns: (header: string[]) => {
      columns = checkColumns(header.map((h) => h.trim().toLowerCase()), 'CSV header');
      onColumns(columns);
      return columns;
    },
    skip_empty_lines: true,
    trim: true,
    info: true,
    // A row with more or fewer fields than the header is an error of that row, not of the file.
    relax_column_count: true,
  }));
  source.on('error', (err) => parser.destroy(err));
  try {
    for await (const { record, info } of parser as AsyncIterable<CsvRecord>) {
      const fields: InputRow['fields'] = {};
      for (const c of columns) if (record[c] !== undefined && record[c] !== '') fields[c] = record[c];
      yield { line: info.lines, fields, ...(info.invalid_field_length ? { problem: `it has a different number of fields than the header (${columns.length})` } : {}) };
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const e = err as { code?: string; lines?: number; message?: string };
    if (typeof e.code === 'string' && e.code.startsWith('CSV_')) {
      throw new UsageError(`the file is not valid CSV${e.lines ? ` (line ${e.lines})` : ''}: ${e.message ?? e.code}`, undefined, 'invalid_batch');
    }
    throw err;
  }
}

async function* jsonLinesRows(source: Readable, seen: Set<BatchColumn>): AsyncGenerator<InputRow> {
  const lines = createInterface({ input: source, crlfDelay: Infinity });
  // readline does not pass on its input's errors (a file that cannot be read): they end it here.
  let failure: unknown;
  source.once('error', (err) => {
    failure = err;
    lines.close();
  });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (!text.trim()) continue;
    yield jsonLineRow(text, line, seen);
  }
  if (failure) throw failure;
}

function jsonLineRow(text: string, line: number, seen: Set<BatchColumn>): InputRow {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { line, fields: {}, problem: 'it is not a JSON object' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { line, fields: {}, problem: 'it is not a JSON object' };
  const fields: InputRow['fields'] = {};
  let problem: string | undefined;
  for (const [k, v] of Object.entries(value)) {
    if (!(BATCH_COLUMNS as readonly string[]).includes(k)) {
      problem ??= `unknown field "${k}"; the fields are ${BATCH_COLUMNS.join(', ')}`;
      continue;
    }
    // Amounts are decimal strings end to end: a JSON number has already been through a float.
    if (typeof v !== 'string') {
      problem ??= k === 'amount' ? 'amount must be a decimal string in quotes ("12.50"), not a number' : `${k} must be a string`;
      continue;
    }
    seen.add(k as BatchColumn);
    if (v !== '') fields[k as BatchColumn] = v;
  }
  return { line, fields, ...(problem ? { problem } : {}) };
}
