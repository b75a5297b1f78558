// Issue 32: which batch a run of `transfer batch` continues. A batch is named by --batch-id, else
// by its file's base name, else `stdin`; a rerun of the file that failed yesterday must pay only
// its missing rows, but next month's file of the same name (another folder), a copy under a new
// name, a second stdin payout, or a rerun long after the batch was completed must not be taken
// for a continuation and skipped with exit 0 while nothing is paid. When svc cannot tell, it
// refuses before sending (exit 2, batch_ambiguous) and names --batch-id and --new-batch. One run
// of a batch at a time; a row whose answer was lost is never paid twice. Each case as a cron job
// or a person meets it, end to end through the CLI in this process against the sandbox, counting
// what was really paid. (Before issue 32 each of them paid nothing with exit 0, paid twice, or
// ran two runs of a batch at once.)
//
// The fix-a-row story (a row fails, the file is corrected, the same command pays only that row)
// is test/commands/transfer/batch/rerun.test.ts.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../../src/clock.js';
import { runCli, virtualClock } from '../../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../../helpers/e2e.js';
import { isTransferPost, RATE_LIMITED, startLossyProxy, type ProxyAction } from '../../../helpers/lossy-proxy.js';

const HOUR = 3_600_000;

let t: TestSandbox;
let root: string;

beforeAll(async () => {
  t = await startTestSandbox();
  root = mkdtempSync(join(tmpdir(), 'svc-batch-identity-'));
  expect((await t.svc(['sandbox', 'fund', '@alice', '100000'])).code).toBe(0);
}, 30_000);
afterAll(async () => {
  await t?.close();
});

interface Row { line: number; status: string; transfer_id: string; idempotency_key: string; error_code: string; message?: string; earlier?: boolean }
interface Doc { batch_id: string; new_batch?: boolean; summary: Record<string, unknown>; rows: Row[] }
interface Err { code: string; message: string; hint?: string; batch_id?: string; failed?: number; changed?: number }

/** Every transfer of @alice (the sandbox's own list). */
const count = async () => (await t.svcJson<unknown[]>(['transfer', 'ls', '--all'])).length;

/** Every transfer of @alice, its amount and memo decrypted locally. */
const decrypted = () => t.svcJson<Array<{ transfer_id: string; amount?: string; memo?: string }>>(['transfer', 'ls', '--all', '--decrypt']);

/** How many transfers of @alice carry each memo beginning with `prefix`. */
async function paid(prefix: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const x of await decrypted()) if (x.memo?.startsWith(prefix)) counts[x.memo] = (counts[x.memo] ?? 0) + 1;
  return counts;
}

/** The sandbox moves 25 hours on: it has forgotten every idempotency key it was sent. */
const forget = async () => expect((await t.svc(['sandbox', 'clock', 'advance', '25h'])).code).toBe(0);

/** A CSV file at `<root>/<folder>/<name>`. */
function csv(folder: string, name: string, lines: string[]): string {
  const dir = join(root, folder);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

interface BatchRun {
  code: number;
  /** The results document; undefined when the run was refused before sending (stdout empty). */
  doc: Doc | undefined;
  /** The error object on stderr, when there is one. */
  error: Err | undefined;
  stderr: string;
}

/** `svc --json transfer batch …` as a script runs it. */
async function batch(args: string[], o: { input?: string; env?: Record<string, string>; clock?: Clock } = {}): Promise<BatchRun> {
  const r = await runCli(['--json', 'transfer', 'batch', ...args], { env: { ...t.env, ...o.env }, ...(o.input !== undefined ? { input: o.input } : {}), ...(o.clock ? { clock: o.clock } : {}) });
  return {
    code: r.code,
    doc: r.stdout ? (JSON.parse(r.stdout) as Doc) : undefined,
    error: r.stderr ? (JSON.parse(r.stderr) as { error: Err }).error : undefined,
    stderr: r.stderr,
  };
}

/** A run refused before sending: exit 2, batch_ambiguous naming `batch` and both flags, nothing on stdout. */
function expectAmbiguous(r: BatchRun, batchId: string, message: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.doc).toBeUndefined();
  expect(r.error).toMatchObject({ code: 'batch_ambiguous', batch_id: batchId });
  expect(r.error!.message).toMatch(message);
  expect(r.error!.message).toMatch(/nothing was sent$/);
  expect(r.error!.hint).toBe(`to continue that batch (its paid rows are not paid again): --batch-id ${batchId}; to pay every row as a new payout: --new-batch`);
}

describe('a file of the same name in another folder (next month\'s payroll)', () => {
  it('nov/salaries.csv after oct/salaries.csv: refused (exit 2), nothing paid, naming --batch-id salaries.csv and --new-batch; --batch-id continues October\'s batch, --new-batch pays every row once', async () => {
    const rows = ['to,amount,memo,ref', '@acme,25.5,salary-a-1,E-1', '@bob,31,salary-a-2,E-2'];
    const oct = csv('oct', 'salaries.csv', rows);
    const nov = csv('nov', 'salaries.csv', rows);
    const october = await batch([oct]);
    expect(october.code, october.stderr).toBe(0);
    expect(october.doc!.batch_id).toBe('salaries.csv');
    const before = await count();

    const refused = await batch([nov]);
    expectAmbiguous(refused, 'salaries.csv', /^batch "salaries\.csv" was last sent from another file on \S+, and 2 rows of this file match rows it paid: svc cannot tell whether this continues that batch or is a new payout/);
    // A person at a terminal reads the same, and the two ways on.
    const plain = await t.svc(['transfer', 'batch', nov]);
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toMatch(/^error: batch "salaries\.csv" was last sent from another file .*\(batch_ambiguous\)$/m);
    expect(plain.stderr).toMatch(/^hint: .*--batch-id salaries\.csv.*--new-batch$/m);
    expect(await count()).toBe(before);

    // "This is October's batch": its paid rows are not paid again.
    const same = await batch([nov, '--batch-id', 'salaries.csv']);
    expect(same.code, same.stderr).toBe(0);
    expect(same.doc!.summary).toMatchObject({ sent: 2, earlier: 2, failed: 0 });
    expect(same.doc!.rows.map((r) => r.transfer_id)).toEqual(october.doc!.rows.map((r) => r.transfer_id));
    expect(await count()).toBe(before);

    // "This is a new payout": every row once.
    const fresh = await batch([nov, '--new-batch']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.doc).toMatchObject({ batch_id: 'salaries.csv', new_batch: true, summary: { sent: 2, earlier: 0 } });
    expect(await count()).toBe(before + 2);
    expect(await paid('salary-a-')).toEqual({ 'salary-a-1': 2, 'salary-a-2': 2 });
  });
});

describe('a copy under a new name', () => {
  it('cp payouts.csv payouts2.csv, then the copy: refused (exit 2) naming batch "payouts.csv"; nothing paid', async () => {
    const path = csv('copy', 'payouts.csv', ['to,amount,memo,ref', '@acme,12.5,copy-b-1,C-1', '@bob,7.25,copy-b-2,']);
    expect((await batch([path])).code).toBe(0);
    const before = await count();
    const copy = join(root, 'copy', 'payouts2.csv');
    copyFileSync(path, copy);

    const r = await batch([copy]);
    // Both rows match: the one by its ref, the one without by what it pays.
    expectAmbiguous(r, 'payouts.csv', /^2 rows of this file match rows batch "payouts\.csv" paid \(last on \S+\): svc cannot tell whether this file repeats that batch or is a new payout/);
    expect(await count()).toBe(before);
    expect(await paid('copy-b-')).toEqual({ 'copy-b-1': 1, 'copy-b-2': 1 });
  });
});

describe('stdin: every input is the batch "stdin", and no two can be told apart', () => {
  it('a second payout piped in under a paid ref: refused (exit 2), only the first moved; with --batch-id stdin the row is `changed` (exit 5), still nothing more paid', async () => {
    const earlier = new Set((await decrypted()).map((x) => x.transfer_id));
    const before = earlier.size;
    const first = await batch(['-'], { input: 'to,amount,ref\n@acme,1.00,r1\n' });
    expect(first.code, first.stderr).toBe(0);
    expect(first.doc).toMatchObject({ batch_id: 'stdin', summary: { sent: 1 } });
    const paidOnce = first.doc!.rows[0]!.transfer_id;

    const second = await batch(['-'], { input: 'to,amount,ref\n@acme,3.00,r1\n' });
    expectAmbiguous(second, 'stdin', /^batch "stdin" was last sent from stdin on \S+, and 1 row of this input matches a row it paid: svc cannot tell whether this continues that batch or is a new payout/);
    expect(await count()).toBe(before + 1);

    // "It is that batch": the ref was paid with another amount, so the row is not sent.
    const stated = await batch(['-', '--batch-id', 'stdin'], { input: 'to,amount,ref\n@acme,3.00,r1\n' });
    expect(stated.code, stated.stderr).toBe(5);
    expect(stated.doc!.rows).toHaveLength(1);
    expect(stated.doc!.rows[0]).toMatchObject({ status: 'changed', error_code: 'row_changed', transfer_id: paidOnce });
    expect(stated.doc!.summary).toMatchObject({ sent: 0, failed: 0, changed: 1 });
    expect(stated.error).toMatchObject({ code: 'batch_incomplete', batch_id: 'stdin', failed: 0, changed: 1 });

    // Of all three, only the first moved money: 1.00.
    const moved = (await decrypted()).filter((x) => !earlier.has(x.transfer_id));
    expect(moved.map((x) => [x.transfer_id, Number(x.amount)])).toEqual([[paidOnce, 1]]);
  });
});

describe('a batch completed long ago', () => {
  it('run again at once, nothing is paid twice (exit 0); 25 hours later on both clocks the same command is refused (exit 2), nothing paid', async () => {
    const path = csv('bonus', 'bonus.csv', ['to,amount,memo,ref', '@acme,3,bonus-d-1,B-1', '@bob,4,bonus-d-2,B-2']);
    expect((await batch([path])).code).toBe(0);
    const before = await count();

    // The README's "run again: nothing is paid twice".
    const again = await batch([path]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.doc!.summary).toMatchObject({ sent: 2, earlier: 2 });
    expect(await count()).toBe(before);

    // Next month's cron job with the same file name: the service and this machine a day on.
    await forget();
    const late = await batch([path], { clock: virtualClock(Date.now() + 25 * HOUR) });
    expectAmbiguous(late, 'bonus.csv', /^batch "bonus\.csv" was completed on \S+, and 2 rows of this file match rows it paid: svc cannot tell a rerun of it from a new payout/);
    expect(await count()).toBe(before);
    expect(await paid('bonus-d-')).toEqual({ 'bonus-d-1': 1, 'bonus-d-2': 1 });
  });

  it('a completion dated in the future (this machine\'s clock set back two days since): refused too (exit 2), nothing paid', async () => {
    const path = csv('future', 'refunds.csv', ['to,amount,memo,ref', '@acme,2,refund-d-1,F-1']);
    expect((await batch([path])).code).toBe(0);
    const before = await count();
    const back = await batch([path], { clock: virtualClock(Date.now() - 48 * HOUR) });
    expectAmbiguous(back, 'refunds.csv', /^batch "refunds\.csv" was completed on \S+, and 1 row of this file matches a row it paid: svc cannot tell a rerun of it from a new payout/);
    expect(await count()).toBe(before);
  });
});

describe('one run of a batch at a time', () => {
  it('a second run while the first is sending: exit 5 batch_in_progress, nothing sent by it; the first completes, every row paid once', async () => {
    const path = csv('overlap', 'weekly.csv', ['to,amount,memo,ref', '@acme,1.5,weekly-e-1,W-1', '@bob,2.5,weekly-e-2,W-2', '@acme,3.5,weekly-e-3,W-3']);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let held!: () => void;
    const isHeld = new Promise<void>((r) => (held = r));
    let first = true;
    // Both runs reach the service through the proxy (one base URL: one ledger); the first POST waits there.
    const p = await startLossyProxy(t.url, async (req): Promise<ProxyAction> => {
      if (isTransferPost(req) && first) {
        first = false;
        held();
        await gate;
      }
      return 'forward';
    });
    try {
      const env = { SVC_BASE_URL: p.url };
      const before = await count();
      const a = batch([path, '--concurrency', '1'], { env });
      await isHeld; // run A holds the batch and its first row is out

      const b = await batch([path], { env });
      expect(b.code, b.stderr).toBe(5);
      expect(b.doc).toBeUndefined();
      expect(b.error).toMatchObject({ code: 'batch_in_progress', batch_id: 'weekly.csv' });
      expect(b.error!.message).toMatch(/^batch "weekly\.csv" is being sent by another run \(process \d+\); nothing was sent$/);
      expect(p.requests.filter(isTransferPost)).toHaveLength(1); // A's, still held

      release();
      const ra = await a;
      expect(ra.code, ra.stderr).toBe(0);
      expect(ra.doc!.summary).toMatchObject({ sent: 3, earlier: 0 });
      expect(p.forwarded.filter(isTransferPost)).toHaveLength(3);
      expect(await count()).toBe(before + 3);
      expect(await paid('weekly-e-')).toEqual({ 'weekly-e-1': 1, 'weekly-e-2': 1, 'weekly-e-3': 1 });

      // The lock went with A: the command run again now is answered from the ledger.
      const c = await batch([path], { env });
      expect(c.code, c.stderr).toBe(0);
      expect(c.doc!.summary).toMatchObject({ sent: 3, earlier: 3 });
      expect(await count()).toBe(before + 3);
    } finally {
      release();
      await p.close();
    }
  });
});

describe('a row whose answer was lost, then refused', () => {
  it('the first POST made the transfer and lost its answer, the retry got 429: failed idempotency_outcome_unknown (exit 5); a day later the rerun does not send it: one transfer', async () => {
    /** A canary: no line of the ledger may hold it. */
    const AMOUNT = '7319.4711';
    const path = csv('lost', 'lost.csv', ['to,amount,memo,ref', `@acme,${AMOUNT},lost-g-1,G-1`]);
    // The first run's first POST reaches the service and its answer is dropped; its retries are
    // answered 429 by a rate limiter in between. Later POSTs go through: a row sent again would be paid.
    let phase: 'first' | 'later' = 'first';
    let posts = 0;
    const p = await startLossyProxy(t.url, (req) => {
      if (!isTransferPost(req) || phase === 'later') return 'forward';
      return posts++ === 0 ? 'drop-answer' : RATE_LIMITED;
    });
    try {
      const env = { SVC_BASE_URL: p.url };
      const before = await count();
      const first = await batch([path], { env });
      expect(first.code, first.stderr).toBe(5);
      expect(first.doc!.rows[0]).toMatchObject({ status: 'failed', error_code: 'idempotency_outcome_unknown' });
      const key = first.doc!.rows[0]!.idempotency_key;
      expect(key).toMatch(/^svc-batch-[0-9a-f]{32}$/);
      expect(first.doc!.rows[0]!.message).toMatch(/svc transfer ls --since \S+/);
      expect(first.error).toMatchObject({ code: 'batch_incomplete', failed: 1 });
      expect(await count()).toBe(before + 1); // the service did make it
      expect(new Set(p.requests.filter(isTransferPost).map((q) => q.headers['idempotency-key']))).toEqual(new Set([key]));

      phase = 'later';
      await forget(); // the service no longer remembers the key: a POST under it would pay again
      const tried = p.requests.filter(isTransferPost).length;
      const late = await batch([path], { env });
      expect(late.code, late.stderr).toBe(5);
      expect(late.doc!.rows[0]).toMatchObject({ status: 'failed', error_code: 'idempotency_outcome_unknown', idempotency_key: key });
      expect(p.requests.filter(isTransferPost)).toHaveLength(tried); // not sent, under this key or another
      expect(await count()).toBe(before + 1);
      expect(await paid('lost-g-')).toEqual({ 'lost-g-1': 1 });
      const dir = join(t.configDir, 'ledger');
      const ledger = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => readFileSync(join(dir, f), 'utf8')).join('');
      expect(ledger).toContain(key);
      for (const form of [AMOUNT, '7319471100']) expect(ledger).not.toContain(form); // and in minor units
    } finally {
      await p.close();
    }
  });
});
