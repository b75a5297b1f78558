// Whether a run of `transfer batch` continues the batch its name says, or cannot tell. A rerun of
// the file that failed yesterday must pay only its missing rows; next month's file that happens
// to share the name (another folder, stdin, a batch completed long ago), or a copy under a new
// name, must not be taken for it and skipped with exit 0 while nothing is paid. When the rows of
// this run match rows already paid and svc cannot tell a continuation from a new payout, it
// refuses before sending anything (exit 2, `batch_ambiguous`) and names the two flags that
// decide: `--batch-id NAME` (this is that batch: its paid rows are not paid again) and
// `--new-batch` (a new payout: every row is paid). A name given with --batch-id is the user's
// word, and is trusted. docs/payouts.md, "A batch is its name".
import { createHmac } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { CliError } from '../errors.js';
import { shellWord } from '../runtime/hint-command.js';
import type { BatchBook } from './batch-book.js';
import { foldRow } from './batch-book.js';
import type { RowLine } from './ledger/lines.js';
import { Ledger, type LedgerClocks, type LedgerScope } from './ledger/ledger.js';
import { ageOf, type Now } from './ledger/memory.js';

const DAY_MS = 86_400_000;
/** A batch completed longer ago than this is not assumed to be what a file of the same name continues. */
export const COMPLETED_LONG_AGO_MS = DAY_MS;

export const STDIN_SOURCE = 'stdin';

/** Where a batch's rows come from: a keyed hash of the file's real path (no path is written down), or stdin. */
export function sourceOf(path: string, key: Buffer): string {
  if (path === '-') return STDIN_SOURCE;
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    real = path;
  }
  return `file-${createHmac('sha256', key).update(`batch source\u0000${real}`).digest('hex').slice(0, 32)}`;
}

export interface RunIdentity {
  /** The batch's name. */
  name: string;
  /** Given with --batch-id: the user's word for which batch this is. */
  stated: boolean;
  newBatch: boolean;
  source: string;
}

/** Rows of this run another batch has paid: how many, and which batch (the first found). */
export interface PaidElsewhere {
  count: number;
  batch: string;
  at: string;
}

/**
 * Every row id another batch of this service and account had accepted, with its batch and when:
 * read from the whole ledger (every batch's rows), so only when this batch has no record of its
 * own.
 */
export function rowsPaidElsewhere(env: NodeJS.ProcessEnv, scope: LedgerScope, clocks: LedgerClocks, except: string): Map<string, { batch: string; at: string }> {
  const ledger = Ledger.peek(env, scope, clocks, ['"op":"row"']);
  const byRow = new Map<string, RowLine[]>();
  for (const l of ledger.lines()) {
    if (l.op !== 'row' || l.batch === except) continue;
    const id = `${l.batch}\u0000${l.instance ?? ''}\u0000${l.row}`;
    const list = byRow.get(id);
    if (list) list.push(l);
    else byRow.set(id, [l]);
  }
  ledger.close();
  const paid = new Map<string, { batch: string; at: string }>();
  for (const lines of byRow.values()) {
    const r = foldRow(lines);
    if (r?.status === 'accepted') paid.set(r.line.row, { batch: r.line.batch, at: r.settled.at });
  }
  return paid;
}

const flags = (name: string) =>
  `to continue that batch (its paid rows are not paid again): --batch-id ${shellWord(name)}; to pay every row as a new payout: --new-batch`;

/**
 * Refuses (exit 2, nothing sent) when svc cannot tell whether this run continues its batch: `own`
 * rows of this run match rows the batch paid, and the batch was last sent from elsewhere (another
 * file of the same name, or stdin, which cannot be told apart) or was completed long ago; or the
 * batch has no record and `elsewhere` rows match another batch's.
 */
export async function checkContinuation(id: RunIdentity, book: BatchBook, own: number, elsewhere: PaidElsewhere | undefined, now: () => Promise<Now>): Promise<void> {
  if (id.stated || id.newBatch) return;
  const rows = (n: number) => `${n} row${n === 1 ? '' : 's'}`;
  const match = (n: number) => (n === 1 ? 'matches a row' : 'match rows');
  const events = book.events();
  const lastRun = [...events].reverse().find((e) => e.event === 'run');
  const what = id.source === STDIN_SOURCE ? 'input' : 'file';
  if (own > 0) {
    // A batch recorded before runs were (an older svc) is taken to come from the same file.
    const elsewhereFrom = lastRun !== undefined && (id.source === STDIN_SOURCE || lastRun.source !== id.source);
    if (elsewhereFrom) {
      const from = lastRun.source === STDIN_SOURCE ? 'stdin' : 'another file';
      throw ambiguous(`batch "${id.name}" was last sent from ${from} on ${lastRun.at}, and ${rows(own)} of this ${what} ${match(own)} it paid: svc cannot tell whether this continues that batch or is a new payout; nothing was sent`, id.name);
    }
    const last = events.at(-1);
    if (last?.event === 'end' && last.complete === true) {
      const age = ageOf(last, await now());
      if (age.kind === 'future' || age.ms >= COMPLETED_LONG_AGO_MS) {
        throw ambiguous(`batch "${id.name}" was completed on ${last.at}, and ${rows(own)} of this ${what} ${match(own)} it paid: svc cannot tell a rerun of it from a new payout; nothing was sent`, id.name);
      }
    }
    return;
  }
  if (elsewhere && elsewhere.count > 0 && !book.hasRows) {
    throw ambiguous(`${rows(elsewhere.count)} of this ${what} ${match(elsewhere.count)} batch "${elsewhere.batch}" paid (last on ${elsewhere.at}): svc cannot tell whether this ${what} repeats that batch or is a new payout; nothing was sent`, elsewhere.batch);
  }
}

function ambiguous(message: string, name: string): CliError {
  return new CliError('usage', 'batch_ambiguous', message, { hint: flags(name), details: { batch_id: name } });
}
