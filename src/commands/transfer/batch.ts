// `svc transfer batch <file>`: payouts from a CSV or JSON Lines file. The whole file is checked
// first (nothing is sent if a row is bad, unless --skip-invalid), the totals against the balance,
// then rows go out with bounded concurrency, each under a key derived from the batch and the row,
// every outcome journaled: rerunning the same command sends exactly the rows not yet accepted.
import type { App } from '../../app.js';
import type { ApiClient } from '../../api/client.js';
import { formatUnits } from '../../domain/amount.js';
import { CliError, ExitCode, UsageError, type ErrorKind } from '../../errors.js';
import { amountColumn, idColumn, textColumn, addressColumn } from '../../io/columns.js';
import { printJson, outputMode, printList } from '../../io/render.js';
import { startProgress } from '../../io/progress.js';
import { sanitize } from '../../io/sanitize.js';
import { checkTotals } from './batch-balance.js';
import { readBatch, type BatchFormat } from './batch-input.js';
import { openJournal } from './batch-journal.js';
import { batchExitCode, outFormatOk, resultRecord, summarize, summaryLine, writeResults, type ResultLine } from './batch-out.js';
import { batchIdFor, planBatch, totalsOf, type PlannedRow, type RowError } from './batch-plan.js';
import { sendRows, type RowResult } from './batch-run.js';
import { loadPolicyPreview } from './policy-preview.js';

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
/** Bad rows listed in a human error report; --json and the results file carry them all. */
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
function invalidRowsError(app: App, bad: readonly RowError[]): CliError {
  if (!app.json) {
    const lines = bad.slice(0, SHOWN_BAD_ROWS).map((b) => `line ${b.line}: ${sanitize(b.message)}\n`);
    if (bad.length > SHOWN_BAD_ROWS) lines.push(`… and ${bad.length - SHOWN_BAD_ROWS} more (--json lists them all)\n`);
    app.io.err(lines.join(''));
  }
  return new CliError('usage', 'invalid_batch', `${bad.length} row${bad.length === 1 ? '' : 's'} of the file cannot be sent; nothing was sent`, {
    hint: 'fix the rows and run the command again, or add --skip-invalid to send the valid rows',
    details: { rows: bad.map((b) => ({ line: b.line, message: b.message })) },
  });
}

/** The error kind whose exit code is the batch's (the kind alone decides an exit code). */
const KIND_OF_EXIT: Partial<Record<number, ErrorKind>> = {
  [ExitCode.network]: 'network', [ExitCode.unauthorized]: 'auth', [ExitCode.refused]: 'refused',
  [ExitCode.conflict]: 'conflict', [ExitCode.notFound]: 'not_found', [ExitCode.usage]: 'usage',
};

const totalsText = (totals: ReadonlyMap<string, bigint>) => [...totals].map(([asset, units]) => `${formatUnits(units, asset)} ${asset}`).join(' and ');

export async function runBatch(app: App, file: string, opts: BatchOptions): Promise<void> {
  const concurrency = concurrencyOf(opts.concurrency);
  if (opts.out !== undefined && !outFormatOk(opts.out)) throw new UsageError(`--out "${opts.out}" must end in .csv or .jsonl (the results file's format)`);
  const input = await readBatch(file, formatOf(file, opts), app.io.stdin);
  const batchId = batchIdFor(opts.batchId, input.contentHash);
  const plan = planBatch(input, batchId, opts.confidential !== false);
  if (plan.invalid.length && !opts.skipInvalid) throw invalidRowsError(app, plan.invalid);
  if (plan.rows.length === 0) throw new UsageError(plan.invalid.length ? 'no row of the file can be sent' : 'the file has no rows', undefined, 'invalid_batch');
  const skipped: ResultLine[] = plan.invalid.map((b) => ({ line: b.line, fields: b.fields, status: 'skipped', error_code: 'invalid_row', message: b.message }));

  const client = await app.client();
  const results = opts.dryRun
    ? await dryRun(app, client, plan.rows)
    : await send(app, client, batchId, plan.rows, concurrency);
  if (!results) return; // interrupted before anything was sent

  const all = [...skipped, ...results.lines].sort((a, b) => a.line - b.line);
  if (opts.out !== undefined) writeResults(opts.out, all, input.columns);
  report(app, batchId, all, input.columns, Boolean(opts.dryRun), results.interrupted);
}

/** The rows in order, with what the agent's policy would do to each (no agent key: all would be sent). */
async function dryRun(app: App, client: ApiClient, rows: readonly PlannedRow[]): Promise<{ lines: ResultLine[]; interrupted: boolean }> {
  await checkBalance(app, client, totalsOf(rows));
  const preview = await loadPolicyPreview(app);
  if (preview?.spentTodaySource === 'unknown' && app.io.stderrIsTTY && !app.json) {
    app.io.err("note: today's spend could not be read (no decryption key for the agent): counted as 0\n");
  }
  let spent = 0n; // what earlier rows of this run add (evaluate() adds what the service already counts)
  const lines = rows.map((row): ResultLine => {
    const base = { line: row.line, fields: row.fields, asset: row.req.asset, units: row.units };
    if (!preview) return { ...base, status: 'would_send' };
    const e = preview.evaluate({ to: row.req.to, amountUnits: row.units, asset: row.req.asset }, spent);
    spent += e.spendUnits;
    if (e.decision === 'allow') return { ...base, status: 'would_send' };
    if (e.decision === 'hold') return { ...base, status: 'would_hold', message: e.message };
    return { ...base, status: 'would_deny', ...(e.reason ? { error_code: e.reason } : {}), message: e.message, exitCode: ExitCode.refused };
  });
  return { lines, interrupted: false };
}

/** The totals against the decrypted balance (throws when short); a terminal hears when it cannot be checked. */
async function checkBalance(app: App, client: ApiClient, totals: ReadonlyMap<string, bigint>): Promise<void> {
  const balance = await checkTotals(app, client, totals);
  if (balance === 'unchecked' && app.io.stderrIsTTY && !app.json) app.io.err('note: the totals are not checked against the balance: no decryption key opens it here\n');
}

async function send(app: App, client: ApiClient, batchId: string, rows: readonly PlannedRow[], concurrency: number): Promise<{ lines: ResultLine[]; interrupted: boolean }> {
  const account = await app.account();
  const journal = openJournal(app.env, { baseUrl: client.baseUrl, accountId: account.account_id, batchId });
  try {
    const pending = rows.filter((r) => {
      const prior = journal.last.get(r.rowId);
      return prior?.status !== 'sent' && prior?.status !== 'held';
    });
    const totals = totalsOf(pending);
    if (pending.length) {
      await checkBalance(app, client, totals);
      await app.confirmLive(`Send ${pending.length} transfer${pending.length === 1 ? '' : 's'} (${totalsText(totals)}) from a LIVE account?`);
    }
    const progress = app.json ? { update: () => {}, stop: () => {} } : startProgress(app.io, rows.length);
    let out: { results: RowResult[]; interrupted: boolean };
    try {
      out = await sendRows(app, client, batchId, rows, journal, { concurrency, onRow: (done) => progress.update(done) });
    } finally {
      progress.stop();
    }
    const lines = out.results.map((r): ResultLine => ({
      line: r.row.line, fields: r.row.fields, status: r.status, idempotency_key: r.idempotency_key, asset: r.row.req.asset, units: r.row.units,
      ...(r.transfer_id ? { transfer_id: r.transfer_id } : {}), ...(r.transaction_id ? { transaction_id: r.transaction_id } : {}),
      ...(r.error_code ? { error_code: r.error_code } : {}), ...(r.exitCode !== undefined ? { exitCode: r.exitCode } : {}), ...(r.earlier ? { earlier: true } : {}),
    }));
    return { lines, interrupted: out.interrupted };
  } finally {
    journal.close();
  }
}

function report(app: App, batchId: string, all: readonly ResultLine[], columns: Parameters<typeof resultRecord>[1], dryRun: boolean, interrupted: boolean): void {
  const summary = summarize(all);
  const code = interrupted ? ExitCode.interrupted : batchExitCode(all);
  if (app.json) {
    printJson(app.io, {
      batch_id: batchId, ...(dryRun ? { dry_run: true } : {}), ...(interrupted ? { interrupted: true } : {}), summary,
      rows: all.map((r) => ({ ...resultRecord(r, columns), ...(r.message ? { message: r.message } : {}), ...(r.earlier ? { earlier: true } : {}) })),
    });
  } else {
    const mode = outputMode(app.io, false);
    printList(app.io, mode, all.map((r) => ({ ...resultRecord(r, columns), message: r.message ?? '' })), [
      { key: 'line', header: 'LINE', align: 'right' },
      addressColumn('to', 'TO'),
      amountColumn('amount', 'AMOUNT', 'asset'),
      { key: 'asset', header: 'ASSET', only: 'tsv' },
      { key: 'status', header: 'STATUS' },
      idColumn('transfer_id', 'TRANSFER', { drop: 2 }),
      { key: 'idempotency_key', header: 'KEY', only: 'tsv' },
      { key: 'error_code', header: 'ERROR' },
      textColumn('message', 'DETAIL', { drop: 1 }),
    ]);
    // A person gets the summary; a script has the exit code, the results file and --json.
    if (app.io.stderrIsTTY) app.io.err(`${summaryLine(summary, dryRun)}\n`);
  }
  if (interrupted) {
    throw new CliError('interrupted', 'interrupted', `interrupted: ${summary.not_sent} row${summary.not_sent === 1 ? '' : 's'} not sent; run the same command again to send them (rows already accepted are not sent twice)`);
  }
  if (!dryRun && summary.failed) {
    const codes = [...new Set(all.filter((r) => r.status === 'failed').map((r) => r.error_code))].join(', ');
    throw new CliError(KIND_OF_EXIT[code] ?? 'failure', 'batch_incomplete', `${summary.failed} of ${all.length} rows failed (${codes}); run the same command again to retry them: accepted rows are not sent twice`, {
      details: { batch_id: batchId, failed: summary.failed },
    });
  }
  app.exitCode = code;
}
