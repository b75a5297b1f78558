// What a batch reports, written as the rows finish (nothing is kept per row): one result per
// input row on stdout (table, TSV or one JSON document) and in the results file (CSV or JSON
// Lines, written to a temporary file of its own beside it and renamed into place at the end),
// and the tally: counts, totals per asset, and the exit code.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { formatUnits } from '../../../domain/amount.js';
import { UsageError, type ErrorKind } from '../../../errors.js';
import { addressColumn, amountColumn, idColumn, textColumn } from '../../../io/columns.js';
import { ListWriter, outputMode } from '../../../io/render.js';
import { safeJson } from '../../../io/sanitize.js';
import type { IOStreams } from '../../../io/streams.js';
import type { BatchColumn, InputRow } from './input.js';

export type ResultStatus = 'sent' | 'held' | 'failed' | 'changed' | 'not_sent' | 'skipped' | 'would_send' | 'would_hold' | 'would_deny';

export interface ResultLine {
  line: number;
  fields: InputRow['fields'];
  status: ResultStatus;
  transfer_id?: string;
  transaction_id?: string;
  idempotency_key?: string;
  error_code?: string;
  /** With `policy_violation`: the rule that denies it (`recipient_not_allowed` …), as the service says it. */
  reason?: string;
  /** Why a row was skipped, not sent again, failed or would be denied (no amount in it). */
  message?: string;
  /** Already accepted by an earlier run of the same batch. */
  earlier?: boolean;
  asset?: string;
  units?: bigint;
  /** A failed row's kind of failure (it decides the batch's exit code). */
  kind?: ErrorKind;
}

export interface Summary {
  sent: number;
  held: number;
  failed: number;
  skipped: number;
  not_sent: number;
  /** Rows an earlier run paid under the same ref with other content: not sent. */
  changed: number;
  /** Of the rows: accepted by an earlier run (not sent again). */
  earlier: number;
  /** Sent (and held) amounts per asset, decimal strings. */
  totals: Record<string, string>;
}

/**
 * The result columns of the CSV, in order; `reason` and `earlier` came later and so come last
 * (`earlier`: `true` for a row an earlier run accepted and this run did not send, else `false`).
 */
export const RESULT_COLUMNS = ['transfer_id', 'status', 'idempotency_key', 'error_code', 'message', 'reason', 'earlier'] as const;

/** The row as a flat record: its line, the input columns of the file, then the result columns. */
export function resultRecord(r: ResultLine, columns: readonly BatchColumn[]): Record<string, string | number> {
  const out: Record<string, string | number> = { line: r.line };
  for (const c of columns) out[c] = r.fields[c] ?? '';
  out.transfer_id = r.transfer_id ?? r.transaction_id ?? '';
  out.status = r.status;
  out.idempotency_key = r.idempotency_key ?? '';
  out.error_code = r.error_code ?? '';
  out.message = r.message ?? '';
  out.reason = r.reason ?? '';
  out.earlier = r.earlier ? 'true' : 'false';
  return out;
}

/** The same row for JSON: `reason` only when there is one, `earlier: true` only where it applies (a boolean). */
function jsonRecord(r: ResultLine, columns: readonly BatchColumn[]): Record<string, string | number | boolean> {
  const { reason, earlier: _earlier, ...rec } = resultRecord(r, columns);
  return { ...rec, ...(reason ? { reason } : {}), ...(r.earlier ? { earlier: true } : {}) };
}

/**
 * The STATUS a person reads: what this run did, and a row an earlier run accepted said as such
 * (`already sent (earlier run)`), so a rerun's table does not claim to have sent it (docs/payouts.md).
 */
export function statusText(r: ResultLine): string {
  if (!r.earlier) return r.status;
  if (r.status === 'sent' || r.status === 'held') return `already ${r.status} (earlier run)`;
  return `${r.status} (earlier run)`;
}

/**
 * Failures decide the batch's kind (hence its exit code) by severity: an unknown outcome
 * (network, 7) first, then a refused key (auth, 3), refusals of balance or policy (6), conflicts
 * (5), not found (4), anything else (1); held rows without failures are `held` (8); all sent is
 * success (docs/exit-codes.md).
 */
const SEVERITY: readonly ErrorKind[] = ['network', 'auth', 'refused', 'conflict', 'not_found', 'failure', 'usage'];

/** Counts, totals and the worst failure, added to row by row. */
export class Tally {
  private readonly counts: Omit<Summary, 'totals'> = { sent: 0, held: 0, failed: 0, skipped: 0, not_sent: 0, changed: 0, earlier: 0 };
  private readonly totals = new Map<string, bigint>();
  /** What this run itself sent or held (rows an earlier run accepted are counted apart). */
  private readonly runTotals = new Map<string, bigint>();
  private readonly earlierAccepted = { sent: 0, held: 0 };
  private readonly failureKinds = new Set<ErrorKind>();
  private readonly errorCodes = new Set<string>();

  add(r: ResultLine): void {
    const c = this.counts;
    if (r.status === 'sent' || r.status === 'held' || r.status === 'would_send' || r.status === 'would_hold') {
      if (r.asset !== undefined && r.units !== undefined) {
        this.totals.set(r.asset, (this.totals.get(r.asset) ?? 0n) + r.units);
        if (!r.earlier) this.runTotals.set(r.asset, (this.runTotals.get(r.asset) ?? 0n) + r.units);
      }
      if (r.earlier) this.earlierAccepted[r.status === 'held' ? 'held' : 'sent']++;
    }
    if (r.status === 'sent' || r.status === 'would_send') c.sent++;
    else if (r.status === 'held' || r.status === 'would_hold') c.held++;
    else if (r.status === 'failed' || r.status === 'would_deny') {
      c.failed++;
      this.failureKinds.add(r.kind ?? 'failure');
      if (r.error_code) this.errorCodes.add(r.error_code);
    } else if (r.status === 'changed') {
      c.changed++;
      this.failureKinds.add(r.kind ?? 'conflict');
      if (r.error_code) this.errorCodes.add(r.error_code);
    } else if (r.status === 'skipped') c.skipped++;
    else c.not_sent++;
    if (r.earlier) c.earlier++;
  }

  get rows(): number {
    const c = this.counts;
    return c.sent + c.held + c.failed + c.changed + c.skipped + c.not_sent;
  }

  /** The error codes of the failed rows. */
  get failureNames(): string[] {
    return [...this.errorCodes];
  }

  summary(): Summary {
    return { ...this.counts, totals: decimals(this.totals) };
  }

  /** For the summary line: what this run sent and held, and what an earlier run had. */
  runWords(): RunWords {
    return { earlierSent: this.earlierAccepted.sent, earlierHeld: this.earlierAccepted.held, runTotals: decimals(this.runTotals) };
  }

  /** The batch's outcome as a kind of the one exit map, or undefined when every row went through. */
  outcome(): ErrorKind | undefined {
    if (this.failureKinds.size) return SEVERITY.find((kind) => this.failureKinds.has(kind)) ?? 'failure';
    return this.counts.held ? 'held' : undefined;
  }
}

function decimals(m: ReadonlyMap<string, bigint>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [asset, units] of m) out[asset] = formatUnits(units, asset);
  return out;
}

export interface RunWords {
  earlierSent: number;
  earlierHeld: number;
  /** Per asset, what this run sent or held. */
  runTotals: Record<string, string>;
}

/**
 * The line a person reads at the end: what this run did (`sent 1, held 0, failed 0, skipped 0;
 * total 3.00 USDG`), then what an earlier run had done and this one did not do again (`already
 * sent by an earlier run 3`). The JSON summary keeps its fields (sent counts both; `earlier`).
 */
export function summaryLine(s: Summary, dryRun: boolean, run: RunWords): string {
  const totals = Object.entries(run.runTotals).map(([asset, amount]) => `${amount} ${asset}`).join(', ');
  const verbs = dryRun ? ['would send', 'would hold', 'would be denied'] : ['sent', 'held', 'failed'];
  const parts = [`${verbs[0]} ${s.sent - run.earlierSent}`, `${verbs[1]} ${s.held - run.earlierHeld}`, `${verbs[2]} ${s.failed}`, `skipped ${s.skipped}`];
  if (s.changed) parts.push(`changed ${s.changed}`);
  if (s.not_sent) parts.push(`not sent ${s.not_sent}`);
  const before = [...(run.earlierSent ? [`already sent by an earlier run ${run.earlierSent}`] : []), ...(run.earlierHeld ? [`already held by an earlier run ${run.earlierHeld}`] : [])];
  return `${parts.join(', ')}${totals ? `; total ${totals}` : ''}${before.length ? `; ${before.join(', ')} (not sent again)` : ''}`;
}

/** `--out` must say its format by its name. */
export function outFormatOk(path: string): boolean {
  return /\.(csv|jsonl)$/i.test(path);
}

export interface ResultSink {
  write(r: ResultLine): void;
  end(s: Summary, extra: { interrupted: boolean }): void;
  /** Drops what was written (a failure before the end). */
  abort(): void;
}

/**
 * A spreadsheet runs a cell that begins with = + - @ (or a tab, CR or NUL before one) as a formula:
 * `=HYPERLINK(...)` in a memo would be a live link in the payroll sheet. Such a cell gets a
 * leading ' (OWASP's rule for CSV injection), which makes it text; then RFC 4180 quoting.
 */
export function csvField(v: string | number): string {
  let s = String(v);
  if (/^[=+\-@\t\r\0]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) || s.startsWith("'") ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * A new file beside `path` for its results, created exclusively (O_EXCL|O_NOFOLLOW, 0600) under a
 * name nobody can guess: a symlink planted in a shared folder is never written through.
 */
function createTemp(path: string): { temp: string; fd: number } {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(12).toString('hex')}.tmp`);
  try {
    return { temp, fd: openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'its folder does not exist' : code === 'EACCES' || code === 'EPERM' ? 'its folder is not writable' : code === 'ENOTDIR' ? 'its folder is not a directory' : undefined;
    if (why) throw new UsageError(`--out "${path}" cannot be written: ${why}`);
    throw err;
  }
}

/** The results file: written to a temporary file of its own, renamed into place by end(). */
export function fileSink(path: string, columns: readonly BatchColumn[]): ResultSink {
  const jsonl = /\.jsonl$/i.test(path);
  const header = ['line', ...columns, ...RESULT_COLUMNS];
  const { temp, fd } = createTemp(path);
  let pending = jsonl ? '' : `${header.map(csvField).join(',')}\n`;
  const flush = (force: boolean) => {
    if (pending.length < 64 * 1024 && !force) return;
    writeSync(fd, pending);
    pending = '';
  };
  return {
    write(r) {
      const rec = resultRecord(r, columns);
      pending += jsonl ? `${JSON.stringify({ ...jsonRecord(r, columns), reason: r.reason ?? '' })}\n` : `${header.map((h) => csvField(rec[h] ?? '')).join(',')}\n`;
      flush(false);
    },
    end() {
      flush(true);
      closeSync(fd);
      // rename() replaces what is at `path` (a symlink there included) and never follows it.
      renameSync(temp, path);
    },
    abort() {
      closeSync(fd);
      rmSync(temp, { force: true });
    },
  };
}

const PAGE = 100;

/** stdout: a table on a terminal, TSV when piped, or one JSON document `{batch_id, rows, summary}`. */
export function stdoutSink(io: IOStreams, json: boolean, columns: readonly BatchColumn[], head: { batch_id: string; new_batch?: true; dry_run?: true }): ResultSink {
  if (json) {
    let n = 0;
    io.out(`${safeJson(head).slice(0, -1)},"rows":[`);
    return {
      write(r) {
        const { message, ...rec } = jsonRecord(r, columns);
        io.out(`${n++ ? ',' : ''}\n${safeJson({ ...rec, ...(message ? { message } : {}) })}`);
      },
      end(s, extra) {
        io.out(`${n ? '\n' : ''}],${extra.interrupted ? '"interrupted":true,' : ''}"summary":${safeJson(s)}}\n`);
      },
      abort() {},
    };
  }
  const writer = new ListWriter(io, outputMode(io, false), [
    { key: 'line', header: 'LINE', align: 'right' },
    addressColumn('to', 'TO'),
    amountColumn('amount', 'AMOUNT', 'asset'),
    { key: 'asset', header: 'ASSET', only: 'tsv' },
    { key: 'status_text', header: 'STATUS', only: 'table' },
    { key: 'status', header: 'STATUS', only: 'tsv' },
    idColumn('transfer_id', 'TRANSFER', { drop: 2 }),
    { key: 'idempotency_key', header: 'KEY', only: 'tsv' },
    { key: 'error_code', header: 'ERROR' },
    textColumn('message', 'DETAIL', { drop: 1 }),
    { key: 'reason', header: 'REASON', only: 'tsv' },
    { key: 'earlier', header: 'EARLIER', only: 'tsv' },
  ]);
  let page: Record<string, unknown>[] = [];
  const flush = () => {
    writer.write(page);
    page = [];
  };
  return {
    write(r) {
      page.push({ ...resultRecord(r, columns), status_text: statusText(r) });
      if (page.length >= PAGE) flush();
    },
    end() {
      flush();
      writer.end();
    },
    abort() {},
  };
}
