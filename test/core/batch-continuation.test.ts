// Whether a run continues its batch, or svc cannot tell (checkContinuation,
// core/batch-continuation.ts), pure: the batch's events as the ledger holds them, clocks given as
// numbers. The end-to-end cases (another folder, a copy, stdin, long ago, one run at a time) are
// test/commands/transfer/batch/identity.test.ts.
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BatchBook } from '../../src/core/batch-book.js';
import { checkContinuation, sourceOf, STDIN_SOURCE, type PaidElsewhere, type RunIdentity } from '../../src/core/batch-continuation.js';
import type { BatchLine } from '../../src/core/ledger/lines.js';
import type { Now } from '../../src/core/ledger/memory.js';
import { CliError } from '../../src/errors.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-03-01T09:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const FILE = 'file-0123456789abcdef0123456789abcdef';
const OTHER = 'file-fedcba9876543210fedcba9876543210';

/** An event of batch payouts.csv at T0 + `after` (the service's clock agrees). */
const event = (after: number, e: Pick<BatchLine, 'event'> & Partial<BatchLine>): BatchLine => ({ op: 'batch', batch: 'payouts.csv', at: iso(T0 + after), svc_at: iso(T0 + after), ...e });
/** A run from `source` at T0 + `after` that ended (complete or not) a minute later. */
const run = (after: number, source: string, complete: boolean) => [event(after, { event: 'run', source }), event(after + 60_000, { event: 'end', complete })];

/** The two things checkContinuation reads of a book: its events, and whether its instance has rows. */
const book = (events: BatchLine[], hasRows = events.length > 0) => ({ events: () => events, hasRows }) as unknown as BatchBook;
const id = (o: Partial<RunIdentity> = {}): RunIdentity => ({ name: 'payouts.csv', stated: false, newBatch: false, source: FILE, ...o });
/** Now, `after` ms past T0 on this machine's clock and on the service's. */
const at = (after: number, serviceAfter = after) => async (): Promise<Now> => ({ machine: T0 + after, service: T0 + serviceAfter });

/** The refusal checkContinuation throws: batch_ambiguous (exit 2) naming `batch` and both flags. */
async function refusal(p: Promise<void>, batch = 'payouts.csv'): Promise<CliError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(CliError);
  const e = err as CliError;
  expect(e).toMatchObject({ kind: 'usage', code: 'batch_ambiguous', details: { batch_id: batch } });
  expect(e.exitCode).toBe(2);
  expect(e.hint).toBe(`to continue that batch (its paid rows are not paid again): --batch-id ${batch}; to pay every row as a new payout: --new-batch`);
  return e;
}

describe('a run whose rows match rows its batch paid', () => {
  it('from the file the batch was last sent from, not completed: continues, even days later (the failed row fixed and sent)', async () => {
    await expect(checkContinuation(id(), book(run(0, FILE, false)), 3, undefined, at(72 * HOUR))).resolves.toBeUndefined();
  });

  it('from that file, completed within 24 hours: continues (run again, nothing paid twice)', async () => {
    await expect(checkContinuation(id(), book(run(0, FILE, true)), 3, undefined, at(HOUR))).resolves.toBeUndefined();
  });

  it('from that file, completed 24 hours ago or more: refused', async () => {
    const e = await refusal(checkContinuation(id(), book(run(0, FILE, true)), 3, undefined, at(25 * HOUR)));
    expect(e.message).toBe(`batch "payouts.csv" was completed on ${iso(T0 + 60_000)}, and 3 rows of this file match rows it paid: svc cannot tell a rerun of it from a new payout; nothing was sent`);
  });

  it('from that file, its completion dated in the future (a clock set back since): refused', async () => {
    const e = await refusal(checkContinuation(id(), book(run(0, FILE, true)), 1, undefined, at(-48 * HOUR)));
    expect(e.message).toBe(`batch "payouts.csv" was completed on ${iso(T0 + 60_000)}, and 1 row of this file matches a row it paid: svc cannot tell a rerun of it from a new payout; nothing was sent`);
    await refusal(checkContinuation(id(), book(run(0, FILE, true)), 1, undefined, at(HOUR, -HOUR)));
  });

  it('a later run that died (no end): not completed, continues', async () => {
    const events = [...run(0, FILE, true), event(HOUR, { event: 'run', source: FILE })];
    await expect(checkContinuation(id(), book(events), 2, undefined, at(48 * HOUR))).resolves.toBeUndefined();
  });

  it('last sent from another file of the same name: refused, whenever', async () => {
    const events = [...run(0, FILE, false), ...run(HOUR, OTHER, false)];
    for (const now of [at(2 * HOUR), at(72 * HOUR)]) {
      const e = await refusal(checkContinuation(id(), book(events), 2, undefined, now));
      expect(e.message).toBe(`batch "payouts.csv" was last sent from another file on ${iso(T0 + HOUR)}, and 2 rows of this file match rows it paid: svc cannot tell whether this continues that batch or is a new payout; nothing was sent`);
    }
  });

  it('stdin, after stdin or a file: refused (no two inputs can be told apart)', async () => {
    const stdin = id({ name: 'stdin', source: STDIN_SOURCE });
    const after = (source: string) => book(run(0, source, false).map((l) => ({ ...l, batch: 'stdin' })));
    expect((await refusal(checkContinuation(stdin, after(STDIN_SOURCE), 2, undefined, at(HOUR)), 'stdin')).message).toMatch(/^batch "stdin" was last sent from stdin on \S+, and 2 rows of this input match rows it paid: /);
    expect((await refusal(checkContinuation(stdin, after(FILE), 2, undefined, at(HOUR)), 'stdin')).message).toMatch(/^batch "stdin" was last sent from another file on /);
  });

  it('--batch-id and --new-batch are the user\'s word: never refused', async () => {
    const events = [...run(0, OTHER, true)];
    for (const who of [id({ stated: true }), id({ newBatch: true }), id({ stated: true, source: STDIN_SOURCE })]) {
      await expect(checkContinuation(who, book(events), 3, undefined, at(72 * HOUR))).resolves.toBeUndefined();
    }
  });

  it('a batch recorded before runs were (an older svc: no run events): taken to come from this file', async () => {
    await expect(checkContinuation(id(), book([], true), 3, undefined, at(72 * HOUR))).resolves.toBeUndefined();
  });
});

describe('a batch with no record whose rows match another batch\'s', () => {
  const other: PaidElsewhere = { count: 2, batch: 'payouts.csv', at: iso(T0) };

  it('refused, naming that batch', async () => {
    const e = await refusal(checkContinuation(id({ name: 'payouts2.csv' }), book([], false), 0, other, at(HOUR)));
    expect(e.message).toBe(`2 rows of this file match rows batch "payouts.csv" paid (last on ${iso(T0)}): svc cannot tell whether this file repeats that batch or is a new payout; nothing was sent`);
  });

  it('one row: said in the singular', async () => {
    const e = await refusal(checkContinuation(id({ name: 'payouts2.csv' }), book([], false), 0, { ...other, count: 1 }, at(HOUR)));
    expect(e.message).toMatch(/^1 row of this file matches a row batch "payouts\.csv" paid /);
  });

  it('no row matching, --batch-id or --new-batch: goes ahead', async () => {
    await expect(checkContinuation(id({ name: 'payouts2.csv' }), book([], false), 0, undefined, at(HOUR))).resolves.toBeUndefined();
    await expect(checkContinuation(id({ name: 'payouts2.csv', stated: true }), book([], false), 0, other, at(HOUR))).resolves.toBeUndefined();
    await expect(checkContinuation(id({ name: 'payouts2.csv', newBatch: true }), book([], false), 0, other, at(HOUR))).resolves.toBeUndefined();
  });
});

describe('sourceOf: where a run\'s rows come from', () => {
  it('a keyed hash of the file\'s real path (the same file by any path, no path written down); stdin is stdin', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-source-'));
    const key = Buffer.alloc(32, 7);
    writeFileSync(join(dir, 'payouts.csv'), 'to,amount\n');
    symlinkSync(join(dir, 'payouts.csv'), join(dir, 'link.csv'));
    const source = sourceOf(join(dir, 'payouts.csv'), key);
    expect(source).toMatch(/^file-[0-9a-f]{32}$/);
    expect(source).not.toContain(dir);
    expect(sourceOf(join(dir, '.', 'payouts.csv'), key)).toBe(source);
    expect(sourceOf(join(dir, 'link.csv'), key)).toBe(source);
    expect(sourceOf(join(dir, 'payouts.csv'), Buffer.alloc(32, 8))).not.toBe(source);
    expect(sourceOf('-', key)).toBe(STDIN_SOURCE);
  });
});
