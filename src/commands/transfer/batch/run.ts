// `svc transfer batch <file>`: payouts from a CSV or JSON Lines file, read twice and never held
// in memory. The first read checks every row (nothing is sent if one is bad, unless
// --skip-invalid) and sums what is left to send; then the totals are checked against the
// balance; the second read sends, with bounded concurrency, each row under a key derived from
// the batch's name and the row, every outcome in the ledger (core/batch-book.ts): rerunning the
// same command, the file edited or not, sends exactly the rows not yet accepted. When svc cannot
// tell whether a run continues its batch, it refuses before sending (core/batch-continuation.ts).
// One run of a batch at a time: a second is refused while the first holds the batch's lock.
import { randomBytes } from 'node:crypto';
import type { Needs } from '../../../runtime/factory.js';
import type { ApiClient } from '../../../api/client.js';
import { formatUnits } from '../../../domain/amount.js';
import { CliError, SilentExit, UsageError } from '../../../errors.js';
import { startProgress } from '../../../io/progress.js';
import { sanitize } from '../../../io/sanitize.js';
import { BatchBook, isAccepted, type RowRecord } from '../../../core/batch-book.js';
import { checkContinuation, rowsPaidElsewhere, sourceOf, type PaidElsewhere, type RunIdentity } from '../../../core/batch-continuation.js';
import { isContentRowId, keyIdOf, RowIdentities } from '../../../core/batch-identity.js';
import { lockBatch } from '../../../core/batch-lock.js';
import { RefChanges, type Earlier } from '../../../core/batch-ref-changes.js';
import { earlierOf as coreEarlierOf } from '../../../core/batch-rows.js';
import { rowKey } from '../../../core/ledger/local-keys.js';
import { ledgerClocks, nowOnBothClocks } from '../../../core/service-time.js';
import type { Now } from '../../../core/ledger/memory.js';
import { checkTotals } from './balance.js';
import { openBatchFile, readRows, type BatchColumn, type BatchFile, type BatchFormat, type InputRow } from './input.js';
import { fileSink, outFormatOk, stdoutSink, summaryLine, Tally, type ResultLine, type ResultSink } from './results.js';
import { addToTotals, batchNameFor, checkRow, isRowError, type PlannedRow, type RowError } from './plan.js';
import { changedResult, earlierResult, rowSender, runRows } from './send-rows.js';
import { loadPolicyPreview, type PolicyPreview } from '../../agent/policy-preview.js';

export interface BatchOptions {
  jsonl?: boolean;
  batchId?: string;
  newBatch?: boolean;
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

/** Checked rows of one read of the file, each with its identity (both reads give the same answers). */
async function* checkedRows(rows: AsyncIterable<InputRow>, confidential: boolean, identities: RowIdentities): AsyncGenerator<PlannedRow | RowError> {
  const refs = new Map<string, number>();
  for await (const row of rows) {
    const checked = checkRow(row, confidential, refs);
    yield isRowError(checked) ? checked : identities.of(checked);
  }
}

/** One run of a batch: its name, its file, and what it is matched against. */
interface BatchRun {
  id: RunIdentity;
  accountId: string;
  file: BatchFile;
  format: BatchFormat;
  opts: BatchOptions;
  /** The local key of the rows' keyed hashes. */
  key: Buffer;
  book: BatchBook;
  /** Rows whose ref was added or taken away since an earlier run (core/batch-ref-changes.ts). */
  refChanges: RefChanges;
  /** With no record of this batch (and no --batch-id or --new-batch): the rows other batches paid. */
  elsewhere: Map<string, { batch: string; at: string }> | undefined;
}

/** The accepted row that answers for this one (its own, or another's after a ref change), or a ref's row paid with other content. */
function earlierOf(run: BatchRun): (row: PlannedRow) => Earlier | { changed: RowRecord } | undefined {
  return coreEarlierOf(run.book, (row) => run.refChanges.of(row));
}

interface FirstRead {
  columns: BatchColumn[];
  invalid: RowError[];
  valid: number;
  /** Per asset, the rows still to send (not accepted by an earlier run). */
  totals: Map<string, bigint>;
  toSend: number;
  /** Rows this batch had paid already (their own, or matched after a ref change). */
  paid: number;
  /** Rows another batch had paid, when this one has no record. */
  elsewhere: PaidElsewhere | undefined;
}

/** Reads the file once: every row checked, the totals of what is left to send. */
async function firstRead(ctx: Needs<'io' | 'json'>, run: BatchRun): Promise<FirstRead> {
  const reader = await readRows(run.file, run.format);
  const invalid: RowError[] = [];
  const totals = new Map<string, bigint>();
  let valid = 0;
  let toSend = 0;
  let paid = 0;
  let elsewhere: PaidElsewhere | undefined;
  const identities = new RowIdentities(run.key);
  for await (const r of checkedRows(reader.rows, run.opts.confidential !== false, identities)) {
    if (isRowError(r)) {
      invalid.push(r);
      continue;
    }
    valid++;
    const other = run.elsewhere?.get(r.rowId);
    if (other) elsewhere = elsewhere ? { ...elsewhere, count: elsewhere.count + 1 } : { count: 1, ...other };
    const own = run.book.row(r.rowId);
    run.refChanges.note(r, isAccepted(own) ? own : undefined);
    if (isAccepted(own)) {
      paid++;
      continue;
    }
    toSend++;
    addToTotals(totals, r.req.asset, r.units);
  }
  if (invalid.length && !run.opts.skipInvalid) throw invalidRowsError(ctx, invalid);
  if (valid === 0) throw new UsageError(invalid.length ? 'no row of the file can be sent' : 'the file has no rows', undefined, 'invalid_batch');
  for (const m of run.refChanges.resolve((content) => identities.plainCount(content))) {
    toSend--;
    paid++;
    addToTotals(totals, m.asset, -m.units);
    if (totals.get(m.asset) === 0n) totals.delete(m.asset);
  }
  return { columns: reader.columns(), invalid, valid, totals, toSend, paid, elsewhere };
}

export async function runBatch(ctx: Needs<'account' | 'client' | 'clock' | 'confirm' | 'env' | 'interrupt' | 'io' | 'json' | 'network' | 'reader' | 'serviceClock'>, path: string, opts: BatchOptions): Promise<void> {
  const concurrency = concurrencyOf(opts.concurrency);
  if (opts.out !== undefined && !outFormatOk(opts.out)) throw new UsageError(`--out "${opts.out}" must end in .csv or .jsonl (the results file's format)`);
  const name = batchNameFor(path, opts.batchId);
  const format = formatOf(path, opts);
  const file = await openBatchFile(path, ctx.io.stdin);
  try {
    const client = await ctx.client();
    // The ledger is the account's: asked before the file is read.
    const account = await ctx.account();
    const scope = { baseUrl: client.baseUrl, accountId: account.account_id };
    // A dry run records nothing and makes no key; without one, no ledger can know a row without a ref.
    const key = rowKey(ctx.env, { create: !opts.dryRun }) ?? randomBytes(32);
    // One run of a batch at a time (a dry run reads only): held until every row's outcome is written.
    const unlock = opts.dryRun ? undefined : lockBatch(ctx.env, scope, name);
    try {
      const clocks = ledgerClocks(ctx);
      const book = BatchBook.open(ctx.env, scope, clocks, name, { ...(opts.newBatch ? { newInstance: randomBytes(8).toString('hex') } : {}), readOnly: Boolean(opts.dryRun) });
      try {
        refuseAnotherKey(book, keyIdOf(key), name, Boolean(opts.newBatch));
        const id: RunIdentity = { name, stated: opts.batchId !== undefined, newBatch: Boolean(opts.newBatch), source: sourceOf(path, key) };
        const elsewhere = !id.stated && !id.newBatch && !book.hasRows ? rowsPaidElsewhere(ctx.env, scope, clocks, name) : undefined;
        const run: BatchRun = { id, accountId: account.account_id, file, format, opts, key, book, refChanges: new RefChanges(() => book.accepted()), elsewhere };
        const first = await firstRead(ctx, run);
        await checkContinuation(id, book, first.paid, first.elsewhere, () => nowOnBothClocks(ctx));
        await second(ctx, client, run, concurrency, first);
      } finally {
        book.close();
      }
    } finally {
      unlock?.();
    }
  } finally {
    file.close();
  }
}

/**
 * Rows without a ref are matched by a hash under the local key: under another key (the file
 * replaced or lost), they would all look new and be paid again. Refused instead.
 */
function refuseAnotherKey(book: BatchBook, keyId: string, batch: string, newBatch: boolean): void {
  if (newBatch) return;
  for (const r of book.accepted()) {
    if (isContentRowId(r.line.row) && r.line.key_id !== undefined && r.line.key_id !== keyId) {
      throw new CliError('usage', 'batch_key_changed', `batch "${batch}" holds rows without a ref recorded under another local key (the ledger's row key in the config directory was replaced): they cannot be matched to this file, and would be paid again; nothing was sent`, {
        hint: 'restore ledger/row.key (or batches/.key) from a backup of the config directory, or add --new-batch to send every row again on purpose',
      });
    }
  }
}

/** The totals against the decrypted balance (throws when short); a terminal hears when it cannot be checked. */
async function checkBalance(ctx: Needs<'io' | 'json' | 'reader'>, client: ApiClient, totals: ReadonlyMap<string, bigint>): Promise<void> {
  const balance = await checkTotals(ctx, client, totals);
  if (balance === 'unchecked' && ctx.io.stderrIsTTY && !ctx.json) ctx.io.err('note: the totals are not checked against the balance: no decryption key opens it here\n');
}

/** The agent's policy over the rows in order: earlier rows count toward the daily limit. */
function previewer(preview: PolicyPreview | undefined, earlier: (row: PlannedRow) => Earlier | { changed: RowRecord } | undefined): (row: PlannedRow) => Promise<ResultLine> {
  let spent = 0n; // what earlier rows of this run add (evaluate() adds what the service already counts)
  return async (row) => {
    const found = earlier(row);
    // A real run would not send it.
    if (found) return 'changed' in found ? changedResult(row, found.changed) : earlierResult(row, found);
    const b = { line: row.line, fields: row.fields, asset: row.req.asset, units: row.units };
    if (!preview) return { ...b, status: 'would_send' };
    const e = preview.evaluate({ to: row.req.to, amountUnits: row.units, asset: row.req.asset }, spent);
    spent += e.spendUnits;
    if (e.decision === 'allow') return { ...b, status: 'would_send' };
    if (e.decision === 'hold') return { ...b, status: 'would_hold', message: e.message };
    // The real run's code for the same cause (the service's 403 policy_violation), the rule in `reason`.
    return { ...b, status: 'would_deny', error_code: 'policy_violation', ...(e.reason ? { reason: e.reason } : {}), message: e.message, kind: 'refused' };
  };
}

/** What to tell someone whose run stopped short: the command that sends the rest, and only the rest. */
function rerunAdvice(opts: BatchOptions): string {
  // The same command with --new-batch would start yet another instance and pay every row again.
  return opts.newBatch ? 'run the command again without --new-batch' : 'run the same command again';
}

/** Reads the file again and sends (or, with --dry-run, evaluates) each row, writing results as they come. */
async function second(ctx: Needs<'account' | 'client' | 'clock' | 'confirm' | 'interrupt' | 'io' | 'json' | 'network' | 'reader' | 'serviceClock'>, client: ApiClient, run: BatchRun, concurrency: number, first: FirstRead): Promise<void> {
  const { opts, book } = run;
  const batch = run.id.name;
  const dryRun = Boolean(opts.dryRun);
  if (first.toSend) await checkBalance(ctx, client, first.totals);
  if (opts.newBatch && ctx.io.stderrIsTTY && !ctx.json) {
    ctx.io.err(`note: --new-batch: a new instance of batch "${sanitize(batch)}"; every row is ${dryRun ? 'evaluated' : 'sent'}, even those an earlier run had accepted\n`);
  }
  let handle: (row: PlannedRow) => Promise<ResultLine>;
  if (dryRun) {
    const preview = await loadPolicyPreview(ctx);
    if (preview?.spentTodaySource === 'unknown' && ctx.io.stderrIsTTY && !ctx.json) {
      ctx.io.err("note: today's spend could not be read (no decryption key for the agent): counted as 0\n");
    }
    handle = previewer(preview, earlierOf(run));
  } else {
    if (first.toSend) {
      const what = `${first.toSend} transfer${first.toSend === 1 ? '' : 's'}`;
      const again = opts.newBatch ? ', rows an earlier run accepted included (--new-batch)' : '';
      await ctx.confirm.live(`Send ${what} (${totalsText(first.totals)}) from a LIVE account${again}?`, `Sending ${what} from a LIVE account${again}`);
    }
    handle = rowSender(ctx, client, {
      book, scope: { accountId: run.accountId, batch, instance: book.instance }, keyId: keyIdOf(run.key), earlier: earlierOf(run),
      now: (() => {
        let now: Promise<Now> | undefined; // the service's time, asked once for every row that needs it
        return () => (now ??= nowOnBothClocks(ctx));
      })(),
    });
    book.begin(run.id.source); // confirmed: a --new-batch instance exists from here on, sent rows or not
  }

  let interrupted = false;
  if (!dryRun) void ctx.interrupt.wait().then(() => (interrupted = true));
  const head = { batch_id: batch, ...(opts.newBatch ? { new_batch: true as const } : {}), ...(dryRun ? { dry_run: true as const } : {}) };
  // The results file first: if it cannot be made, stdout has not begun its document.
  const out = opts.out !== undefined ? fileSink(opts.out, first.columns) : undefined;
  const sinks: ResultSink[] = [stdoutSink(ctx.io, ctx.json, first.columns, head), ...(out ? [out] : [])];
  const tally = new Tally();
  const progress = ctx.json || dryRun ? { update: () => {}, stop: () => {} } : startProgress(ctx.io, first.valid + (opts.skipInvalid ? first.invalid.length : 0), () => ctx.clock.now());
  const reader = await readRows(run.file, run.format);
  try {
    await runRows(checkedRows(reader.rows, opts.confidential !== false, new RowIdentities(run.key)), handle, {
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
  // Complete: every row of the file accepted, now or before (a later run of it may be a new payout).
  if (!dryRun) book.end(!interrupted && summary.failed + summary.changed + summary.skipped + summary.not_sent === 0);
  for (const s of sinks) s.end(summary, { interrupted });
  // A person gets the summary; a script has the exit code, the results file and --json.
  if (!ctx.json && ctx.io.stderrIsTTY) ctx.io.err(`${summaryLine(summary, dryRun, tally.runWords())}\n`);

  if (interrupted) {
    throw new CliError('interrupted', 'interrupted', `interrupted: ${summary.not_sent} row${summary.not_sent === 1 ? '' : 's'} not sent; ${rerunAdvice(opts)} to send them (rows already accepted are not sent twice)`);
  }
  const outcome = tally.outcome();
  if (!dryRun && (summary.failed || summary.changed)) {
    const failed = summary.failed ? [`${summary.failed} of ${tally.rows} rows failed (${tally.failureNames.filter((c) => c !== 'row_changed').join(', ')}); ${rerunAdvice(opts)} to retry them, after correcting any row the service refused (the file may be edited): rows already accepted are not sent twice`] : [];
    const changed = summary.changed ? [`${summary.changed} row${summary.changed === 1 ? ' was' : 's were'} paid by an earlier run under the same ref with other content, and not sent (row_changed): a second payout needs a new ref`] : [];
    throw new CliError(outcome ?? 'failure', 'batch_incomplete', [...failed, ...changed].join('; '), {
      details: { batch_id: batch, failed: summary.failed, changed: summary.changed },
    });
  }
  // Rows held for an approver (8), or a dry run's denials (6): the results say it all.
  if (outcome) throw new SilentExit(outcome, outcome === 'held' ? 'held_for_approval' : 'would_deny');
}
