// Reading a payout file: CSV (csv-parse, streaming) or JSON Lines, from a file or stdin. Every
// row keeps its line number for error messages, and the bytes are hashed as they stream by, so
// an unchanged file always gets the same batch id (and a rerun resumes it).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { UsageError } from '../../errors.js';

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

export interface BatchInput {
  rows: InputRow[];
  /** sha256 of the bytes read, hex. */
  contentHash: string;
  /** The columns present, in the file's order (CSV header, or first-seen for JSON Lines). */
  columns: BatchColumn[];
}

export type BatchFormat = 'csv' | 'jsonl';

/** Reads `path` (`-`: stdin) whole; rows are small, and every row is validated before any is sent. */
export async function readBatch(path: string, format: BatchFormat, stdin: Readable): Promise<BatchInput> {
  // Loaded first: the reader and the hash must be attached to the stream in the same turn, or
  // the first chunks would flow past one of them.
  const parse = format === 'csv' ? (await import('csv-parse')).parse : undefined;
  const source = path === '-' ? stdin : createReadStream(path);
  const hash = createHash('sha256');
  try {
    const reading = parse ? readCsv(source, parse) : readJsonLines(source);
    source.on('data', (chunk: Buffer | string) => hash.update(chunk));
    const read = await reading;
    return { ...read, contentHash: hash.digest('hex') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') {
      throw new UsageError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : 'permission denied'}`, undefined, 'invalid_batch');
    }
    throw err;
  }
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

/** Sets up the parser at once (synchronously), then reads. */
function readCsv(source: Readable, parse: Parse): Promise<Omit<BatchInput, 'contentHash'>> {
  let columns: BatchColumn[] = [];
  const parser = source.pipe(parse({
    bom: true,
    columns: (header: string[]) => (columns = checkColumns(header.map((h) => h.trim().toLowerCase()), 'CSV header')),
    skip_empty_lines: true,
    trim: true,
    info: true,
    // A row with more or fewer fields than the header is an error of that row, not of the file.
    relax_column_count: true,
  }));
  source.on('error', (err) => parser.destroy(err));
  return collectCsv(parser, () => columns);
}

async function collectCsv(parser: AsyncIterable<unknown>, columnsOf: () => BatchColumn[]): Promise<Omit<BatchInput, 'contentHash'>> {
  const rows: InputRow[] = [];
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string | undefined>; info: { lines: number; invalid_field_length: number } }>) {
      const columns = columnsOf();
      const fields: InputRow['fields'] = {};
      for (const c of columns) if (record[c] !== undefined && record[c] !== '') fields[c] = record[c];
      rows.push({ line: info.lines, fields, ...(info.invalid_field_length ? { problem: `it has a different number of fields than the header (${columns.length})` } : {}) });
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const e = err as { code?: string; lines?: number; message?: string };
    if (typeof e.code === 'string' && e.code.startsWith('CSV_')) {
      throw new UsageError(`the file is not valid CSV${e.lines ? ` (line ${e.lines})` : ''}: ${e.message ?? e.code}`, undefined, 'invalid_batch');
    }
    throw err;
  }
  const columns = columnsOf();
  if (columns.length === 0) throw new UsageError('the file is empty: a CSV header line (to,amount[,asset][,memo][,ref]) is required', undefined, 'invalid_batch');
  return { rows, columns };
}

/** Sets up the line reader at once (synchronously), then reads. */
function readJsonLines(source: Readable): Promise<Omit<BatchInput, 'contentHash'>> {
  const lines = createInterface({ input: source, crlfDelay: Infinity });
  // readline does not pass on its input's errors (a missing file): they end the read here.
  const failed = new Promise<never>((_, reject) => source.once('error', (err) => {
    lines.close();
    reject(err);
  }));
  return Promise.race([collectJsonLines(lines), failed]);
}

async function collectJsonLines(lines: AsyncIterable<string>): Promise<Omit<BatchInput, 'contentHash'>> {
  const rows: InputRow[] = [];
  const seen = new Set<string>();
  let line = 0;
  for await (const text of lines) {
    line++;
    if (!text.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      rows.push({ line, fields: {}, problem: 'it is not a JSON object' });
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      rows.push({ line, fields: {}, problem: 'it is not a JSON object' });
      continue;
    }
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
      seen.add(k);
      if (v !== '') fields[k as BatchColumn] = v;
    }
    rows.push({ line, fields, ...(problem ? { problem } : {}) });
  }
  return { rows, columns: BATCH_COLUMNS.filter((c) => seen.has(c)) };
}
