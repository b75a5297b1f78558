// `svc transfer batch <file>`: payouts from a CSV or JSON Lines file, read twice and never held
// in memory. The first read checks every row (nothing is sent if one is bad, unless
// --skip-invalid) and sums what is left to send; then the totals are checked against the
// balance; the second read sends, with bounded concurrency, each row under a key derived from
// the batch and the row, every outcome journaled: rerunning the same command sends exactly the
// rows not yet accepted.
import type { Needs } from '../../../runtime/factory.js';
import type { ApiClient } from '../../../api/client.js';
import { formatUnits } from '../../../domain/amount.js';
import { CliError, SilentExit, UsageError } from '../../../errors.js';
import { startProgress } from '../../../io/progress.js';
import { sanitize } from '../../../io/sanitize.js';
import { checkTotals } from './balance.js';
import { openBatchFile, readRows, type BatchColumn, type BatchFile, type BatchFormat } from './input.js';
import { openJournal, type Journal } from './journal.js';
import { fileSink, outFormatOk, stdoutSink, summaryLine, Tally, type ResultLine, type ResultSink } from './results.js';
import { addToTotals, batchIdFor, checkRow, isRowError, type PlannedRow, type RowError } from './plan.js';
import { rowSender, runRows } from './send-rows.js';
import { loadPolicyPreview, type PolicyPreview } from '../../agent/policy-preview.js';

export interface BatchOptions {
  jsonl?: boolean;
  batchId?: string;
  dryRun?: boolean;
  skipInvalid?: boolean;
  concurrency: string;
  out?: string;
  confidential?: boolean;
}

export const MAX_CONCURRENCY = 32;
/** Bad rows listed in a human error report; --json lists them all. */
const SHOWN_BAD_ROWS = 20;

function formatOf(file: string, opts: BatchOptions): BatchFormat {
  return opts.jsonl || /\.(jsonl|ndjson)$/i.test(file) ? 'jsonl' : 'csv';
}

function concurrencyOf(text: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY) throw new UsageError(`--concurrency "${text}" must be a whole number from 1 to ${MAX_CONCURRENCY}`);
  return n;
}

/** Lists the bad rows (on stderr for a person; in the error object with --json) and refuses the file. */
function invalidRowsError(ctx: Needs<'io' | 'json'>, bad: readonly RowError[]): CliError {
  if (!ctx.json) {
    const lines = bad.slice(0, SHOWN_BAD_ROWS).map((b) => `line ${b.line}: ${sanitize(b.message)}\n`);
    if (bad.length > SHOWN_BAD_ROWS) lines.push(`… and ${bad.length - SHOWN_BAD_ROWS} more (--json lists them all)\n`);
    ctx.io.err(lines.join(''));
  }
  return new CliError('usage', 'invalid_batch', `${bad.length} row${bad.length === 1 ? '' : 's'} of the file cannot be sent; nothing was sent`, {
    hint: 'fix the rows and run the command again, or add --skip-invalid to send the valid rows',
    details: { rows: bad.map((b) => ({ line: b.line, message: b.message })) },
  });
}

const totalsText = (totals: ReadonlyMap<string, bigint>) => [...totals].map(([asset, units]) => `${formatUnits(units, asset)} ${asset}`).join(' and ');

/** Checked rows of a read of the file (the same checks give the same answers on both reads). */
async function* checkedRows(rows: AsyncIterable<Parameters<typeof checkRow>[0]>, confidential: boolean): AsyncGenerator<PlannedRow | RowError> {
  const refs = new Map<string, number>();
  for await (const row of rows) yield checkRow(row, confidential, refs);
}

interface FirstRead {
  batchId: string;
  columns: BatchColumn[];
  invalid: RowError[];
  valid: number;
  /** Per asset, the rows still to send (not accepted by an earlier run). */
  totals: Map<string, bigint>;
  toSend: number;
}

/** Reads the file once: every row checked, the totals of what is left to send. */
async function firstRead(ctx: Needs<'io' | 'json'>, file: BatchFile, shown: string, format: BatchFormat, opts: BatchOptions, journalFor: (batchId: string) => Journal | undefined): Promise<FirstRead & { journal: Journal | undefined }> {
  const reader = await readRows(file.path, format, shown);
  const invalid: RowError[] = [];
  const planned: Array<{ rowId: string; asset: string; units: bigint }> = [];
  for await (const r of checkedRows(reader.rows, opts.confidential !== false)) {
    if (isRowError(r)) invalid.push(r);
    // Only what the totals need (the batch id, hence the journal, is known at the end of the read).
    else planned.push({ rowId: r.rowId, asset: r.req.asset, units: r.units });
  }
  if (invalid.length && !opts.skipInvalid) throw invalidRowsError(ctx, invalid);
  if (planned.length === 0) throw new UsageError(invalid.length ? 'no row of the file can be sent' : 'the file has no rows', undefined, 'invalid_batch');
  const batchId = batchIdFor(opts.batchId, reader.hash());
  const journal = journalFor(batchId);
  const totals = new Map<string, bigint>();
  let toSend = 0;
  for (const p of planned) {
    const prior = journal?.last.get(p.rowId);
    if (prior?.status === 'sent' || prior?.status === 'held') continue;
    toSend++;
    addToTotals(totals, p.asset, p.units);
  }
  return { batchId, columns: reader.columns(), invalid, valid: planned.length, totals, toSend, journal };
}

export async function runBatch(ctx: Needs<'account' | 'client' | 'clock' | 'confirm' | 'env' | 'interrupt' | 'io' | 'json' | 'network' | 'reader' | 'serviceClock'>, path: string, opts: BatchOptions): Promise<void> {
  const concurrency = concurrencyOf(opts.concurrency);
  if (opts.out !== undefined && !outFormatOk(opts.out)) throw new UsageError(`--out "${opts.out}" must end in .csv or .jsonl (the results file's format)`);
  const format = formatOf(path, opts);
  const file = await openBatchFile(path, ctx.io.stdin);
  try {
    const client = await ctx.client();
    // The journal needs the account, asked before the file is read when rows may be sent.
    const account = opts.dryRun ? undefined : await ctx.account();
    const first = await firstRead(ctx, file, path, format, opts, (batchId) => (account ? openJournal(ctx.env, { baseUrl: client.baseUrl, accountId: account.account_id, batchId }) : undefined));
    try {
      await second(ctx, client, file, format, opts, concurrency, first);
    } finally {
      first.journal?.close();
    }
  } finally {
    file.cleanup();
  }
}

/** The totals against the decrypted balance (throws when short); a terminal hears when it cannot be checked. */
async function checkBalance(ctx: Needs<'io' | 'json' | 'reader'>, client: ApiClient, totals: ReadonlyMap<string, bigint>): Promise<void> {
  const balance = await checkTotals(ctx, client, totals);
  if (balance === 'unchecked' && ctx.io.stderrIsTTY && !ctx.json) ctx.io.err('note: the totals are not checked against the balance: no decryption key opens it here\n');
}

/** The agent's policy over the rows in order: earlier rows count toward the daily limit. */
function previewer(preview: PolicyPreview | undefined): (row: PlannedRow) => Promise<ResultLine> {
  let spent = 0n; // what earlier rows of this run add (evaluate() adds what the service already counts)
  return async (row) => {
    const b = { line: row.line, fields: row.fields, asset: row.req.asset, units: row.units };
    if (!preview) return { ...b, status: 'would_send' };
    const e = preview.evaluate({ to: row.req.to, amountUnits: row.units, asset: row.req.asset }, spent);
    spent += e.spendUnits;
    if (e.decision === 'allow') return { ...b, status: 'would_send' };
    if (e.decision === 'hold') return { ...b, status: 'would_hold', message: e.message };
    return { ...b, status: 'would_deny', ...(e.reason ? { error_code: e.reason } : {}), message: e.message, kind: 'refused' };
  };
}

/** Reads the file again and sends (or, with --dry-run, evaluates) each row, writing results as they come. */
async function second(ctx: Needs<'account' | 'client' | 'clock' | 'confirm' | 'interrupt' | 'io' | 'json' | 'network' | 'reader' | 'serviceClock'>, client: ApiClient, file: BatchFile, format: BatchFormat, opts: BatchOptions, concurrency: number, first: FirstRead & { journal: Journal | undefined }): Promise<void> {
  const dryRun = Boolean(opts.dryRun);
  if (first.toSend) await checkBalance(ctx, client, first.totals);
  let handle: (row: PlannedRow) => Promise<ResultLine>;
  if (dryRun) {
    const preview = await loadPolicyPreview(ctx);
    if (preview?.spentTodaySource === 'unknown' && ctx.io.stderrIsTTY && !ctx.json) {
      ctx.io.err("note: today's spend could not be read (no decryption key for the agent): counted as 0\n");
    }
    handle = previewer(preview);
  } else {
    if (first.toSend) {
      const what = `${first.toSend} transfer${first.toSend === 1 ? '' : 's'}`;
      await ctx.confirm.live(`Send ${what} (${totalsText(first.totals)}) from a LIVE account?`, `Sending ${what} from a LIVE account`);
    }
    handle = rowSender(ctx, client, first.batchId, first.journal!);
  }

  let interrupted = false;
  if (!dryRun) void ctx.interrupt.wait().then(() => (interrupted = true));
  const sinks: ResultSink[] = [stdoutSink(ctx.io, ctx.json, first.columns, { batch_id: first.batchId, ...(dryRun ? { dry_run: true as const } : {}) })];
  if (opts.out !== undefined) sinks.push(fileSink(opts.out, first.columns));
  const tally = new Tally();
  const progress = ctx.json || dryRun ? { update: () => {}, stop: () => {} } : startProgress(ctx.io, first.valid + (opts.skipInvalid ? first.invalid.length : 0), () => ctx.clock.now());
  const reader = await readRows(file.path, format);
  try {
    await runRows(checkedRows(reader.rows, opts.confidential !== false), handle, {
      concurrency: dryRun ? 1 : concurrency, // a dry run evaluates in file order: the daily limit accumulates
      stopped: () => interrupted,
      emit: (r) => {
        tally.add(r);
        for (const s of sinks) s.write(r);
        progress.update(tally.rows);
      },
    });
  } catch (err) {
    progress.stop();
    for (const s of sinks) s.abort();
    throw err;
  }
  progress.stop();
  const summary = tally.summary();
  for (const s of sinks) s.end(summary, { interrupted });
  // A person gets the summary; a script has the exit code, the results file and --json.
  if (!ctx.json && ctx.io.stderrIsTTY) ctx.io.err(`${summaryLine(summary, dryRun)}\n`);

  if (interrupted) {
    throw new CliError('interrupted', 'interrupted', `interrupted: ${summary.not_sent} row${summary.not_sent === 1 ? '' : 's'} not sent; run the same command again to send them (rows already accepted are not sent twice)`);
  }
  const outcome = tally.outcome();
  if (!dryRun && summary.failed) {
    throw new CliError(outcome ?? 'failure', 'batch_incomplete', `${summary.failed} of ${tally.rows} rows failed (${tally.failureNames.join(', ')}); run the same command again to retry them: accepted rows are not sent twice`, {
      details: { batch_id: first.batchId, failed: summary.failed },
    });
  }
  // Rows held for an approver (8), or a dry run's denials (6): the results say it all.
  if (outcome) throw new SilentExit(outcome, outcome === 'held' ? 'held_for_approval' : 'would_deny');
}
