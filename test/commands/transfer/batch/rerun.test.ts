// Issue 21: a batch is its name, not its bytes. One row fails, the user corrects it and runs the
// same command again: only that row is paid; every row already accepted is reported, with its
// earlier transfer and why, and not paid again (with refs and without). --new-batch pays every
// row again, on purpose, and says so. End to end against the in-process sandbox, checking what
// was really paid (every transfer of @alice, decrypted locally).
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../../helpers/e2e.js';

let t: TestSandbox;

beforeAll(async () => {
  t = await startTestSandbox();
  expect((await t.svc(['sandbox', 'fund', '@alice', '100000'])).code).toBe(0);
}, 30_000);
afterAll(async () => {
  await t?.close();
});

interface Row { line: number; status: string; transfer_id: string; error_code: string; message?: string; earlier?: boolean; ref?: string; memo?: string }
interface Doc { batch_id: string; new_batch?: boolean; summary: Record<string, unknown>; rows: Row[] }

/** How many transfers of @alice carry each memo of this test (memos are decrypted locally). */
async function paid(prefix: string): Promise<Record<string, number>> {
  const list = await t.svcJson<Array<{ memo?: string }>>(['transfer', 'ls', '--all', '--decrypt']);
  const counts: Record<string, number> = {};
  for (const x of list) if (x.memo?.startsWith(prefix)) counts[x.memo] = (counts[x.memo] ?? 0) + 1;
  return counts;
}

async function batch(args: string[]): Promise<{ code: number | null; doc: Doc; stderr: string }> {
  const r = await t.svc(['--json', 'transfer', 'batch', ...args]);
  return { code: r.code, doc: JSON.parse(r.stdout) as Doc, stderr: r.stderr };
}

/** A CSV file of this test's own: a name no other test of the file uses (the name is the batch). */
function csv(name: string, lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-rerun-')), name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** Every file of the ledger folder, as text. */
function journals(): string {
  const dir = join(t.configDir, 'ledger');
  return readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
}

describe('one row fails; the user corrects it and runs the same command again', () => {
  it('with refs: only the corrected row is paid; the others are reported with their earlier transfer and why', async () => {
    const path = csv('payouts.csv', [
      'to,amount,memo,ref',
      '@acme,1.234567,refs-1,P-1',
      '@bob,2,refs-2,P-2',
      '@nosuchpayee,3,refs-3,P-3',
      '0x1111111111111111111111111111111111111111,4,refs-4,P-4',
    ]);
    const out = join(path, '..', 'results.csv');
    const first = await batch([path, '--out', out]);
    expect(first.code).toBe(4);
    expect(first.doc.batch_id).toBe('payouts.csv');
    expect(first.doc.rows.map((r) => [r.ref, r.status, r.error_code])).toEqual([['P-1', 'sent', ''], ['P-2', 'sent', ''], ['P-3', 'failed', 'recipient_not_found'], ['P-4', 'sent', '']]);
    const error = JSON.parse(first.stderr).error;
    expect(error.code).toBe('batch_incomplete');
    expect(error.message).toMatch(/run the same command again to retry them.*rows already accepted are not sent twice/);
    const transferOf = new Map(first.doc.rows.map((r) => [r.ref, r.transfer_id]));

    // The user corrects the recipient; the rows move too (the corrected one first).
    writeFileSync(path, ['to,amount,memo,ref', '@acme,3,refs-3,P-3', '@acme,1.234567,refs-1,P-1', '@bob,2,refs-2,P-2', '0x1111111111111111111111111111111111111111,4,refs-4,P-4', ''].join('\n'));
    const again = await batch([path, '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.doc.summary).toMatchObject({ sent: 4, earlier: 3, failed: 0 });
    expect(again.doc.rows[0]).toMatchObject({ ref: 'P-3', status: 'sent' });
    expect(again.doc.rows[0]!.earlier).toBeUndefined();
    for (const r of again.doc.rows.slice(1)) {
      expect(r).toMatchObject({ status: 'sent', earlier: true, transfer_id: transferOf.get(r.ref) });
      expect(r.message).toBe('accepted by an earlier run of this batch (same ref): not sent again');
    }
    expect(await paid('refs-')).toEqual({ 'refs-1': 1, 'refs-2': 1, 'refs-3': 1, 'refs-4': 1 });

    // The results file says the same, row by row.
    const results = readFileSync(out, 'utf8').trim().split('\n');
    expect(results[0]).toBe('line,to,amount,memo,ref,transfer_id,status,idempotency_key,error_code,message,reason,earlier');
    expect(results[2]).toMatch(new RegExp(`^3,"'@acme",1\\.234567,refs-1,P-1,${transferOf.get('P-1')},sent,svc-batch-[0-9a-f]{32},,accepted by an earlier run of this batch \\(same ref\\): not sent again,,true$`));

    // A person reading the table (TSV when piped) sees it too; nothing is paid.
    const plain = await t.svc(['transfer', 'batch', path]);
    expect(plain.code).toBe(0);
    const tsv = plain.stdout.trim().split('\n').slice(1).map((l) => l.split('\t'));
    expect(tsv.map((c) => [c[4], c[8]])).toEqual(Array(4).fill(['sent', 'accepted by an earlier run of this batch (same ref): not sent again']));

    // An accepted row edited later (a new amount, same ref) is still that payout: not paid, and
    // said so with a status of its own, not `sent`; the run exits 5 (what moved is not what is written).
    writeFileSync(path, ['to,amount,memo,ref', '@acme,30,refs-3,P-3', ''].join('\n'));
    const edited = await batch([path]);
    expect(edited.code).toBe(5);
    expect(edited.doc.rows[0]).toMatchObject({ status: 'changed', error_code: 'row_changed', transfer_id: again.doc.rows[0]!.transfer_id });
    expect(edited.doc.rows[0]!.message).toMatch(/^paid by an earlier run of this batch under the same ref with other content \(transfer tr_\w+\): not sent/);
    expect(edited.doc.summary).toMatchObject({ sent: 0, changed: 1 });
    expect(JSON.parse(edited.stderr).error).toMatchObject({ code: 'batch_incomplete', changed: 1 });
    expect(await paid('refs-')).toEqual({ 'refs-1': 1, 'refs-2': 1, 'refs-3': 1, 'refs-4': 1 });
    // The journal has ids, keys and keyed hashes: no amount, memo or ref.
    expect(journals()).not.toMatch(/1\.234567|refs-|P-\d/);
  }, 30_000);

  it('without refs: a row that pays what an accepted row paid is not paid again; identical rows are distinct payouts', async () => {
    const path = csv('payroll.csv', [
      'to,amount,memo',
      '@acme,1.5,noref-1',
      '@bob,2.258163,noref-2',
      '@nosuchpayee,3,noref-3',
      '@bob,2.258163,noref-2',
    ]);
    const first = await batch([path]);
    expect(first.code).toBe(4);
    expect(first.doc.rows.map((r) => r.status)).toEqual(['sent', 'sent', 'failed', 'sent']);
    expect(JSON.parse(first.stderr).error.message).toMatch(/run the same command again/);
    expect(await paid('noref-')).toEqual({ 'noref-1': 1, 'noref-2': 2 });

    writeFileSync(path, ['to,amount,memo', '@bob,2.258163,noref-2', '@acme,3,noref-3', '@acme,1.50,noref-1', '@bob,2.258163,noref-2', ''].join('\n'));
    const again = await batch([path]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.doc.rows.map((r) => [r.status, Boolean(r.earlier)])).toEqual([['sent', true], ['sent', false], ['sent', true], ['sent', true]]);
    expect(again.doc.rows[0]!.message).toBe('accepted by an earlier run of this batch (same recipient, amount, asset and memo): not sent again; --new-batch sends every row again');
    expect(again.doc.rows[0]!.transfer_id).toBe(first.doc.rows[1]!.transfer_id);
    expect(again.doc.rows[3]!.transfer_id).toBe(first.doc.rows[3]!.transfer_id);
    expect(await paid('noref-')).toEqual({ 'noref-1': 1, 'noref-2': 2, 'noref-3': 1 });

    // A third identical row is a third payout: exactly one more.
    writeFileSync(path, `${readFileSync(path, 'utf8')}@bob,2.258163,noref-2\n`);
    const third = await batch([path]);
    expect(third.code).toBe(0);
    expect(third.doc.summary).toMatchObject({ sent: 5, earlier: 4 });
    expect(await paid('noref-')).toEqual({ 'noref-1': 1, 'noref-2': 3, 'noref-3': 1 });
    expect(journals()).not.toMatch(/noref-|2\.258163|2258163/);
  }, 30_000);
});

describe('a ref added to the rows after a run, or taken away', () => {
  it('does not make them new: each is matched, once, by what it pays', async () => {
    const path = csv('refs-later.csv', ['to,amount,memo', '@acme,1,later-1', '@bob,1,later-2', '@bob,1,later-2', '@nosuchpayee,1,later-3']);
    const first = await batch([path]);
    expect(first.code).toBe(4);
    expect(await paid('later-')).toEqual({ 'later-1': 1, 'later-2': 2 });

    // The user gives every row a ref (and corrects the one that failed).
    writeFileSync(path, ['to,amount,memo,ref', '@acme,1,later-1,L-1', '@bob,1,later-2,L-2', '@bob,1,later-2,L-3', '@acme,1,later-3,L-4', ''].join('\n'));
    const withRefs = await batch([path]);
    expect(withRefs.code, withRefs.stderr).toBe(0);
    expect(withRefs.doc.rows.map((r) => Boolean(r.earlier))).toEqual([true, true, true, false]);
    expect(withRefs.doc.rows[0]!.message).toBe('accepted by an earlier run of this batch before the row had a ref (same recipient, amount, asset and memo): not sent again');
    expect(withRefs.doc.rows.slice(0, 3).map((r) => r.transfer_id)).toEqual(first.doc.rows.slice(0, 3).map((r) => r.transfer_id));
    expect(await paid('later-')).toEqual({ 'later-1': 1, 'later-2': 2, 'later-3': 1 });

    // And takes the refs away again.
    writeFileSync(path, ['to,amount,memo', '@acme,1,later-1', '@bob,1,later-2', '@bob,1,later-2', '@acme,1,later-3', ''].join('\n'));
    const without = await batch([path]);
    expect(without.code, without.stderr).toBe(0);
    expect(without.doc.summary).toMatchObject({ sent: 4, earlier: 4 });
    expect(without.doc.rows[3]).toMatchObject({ transfer_id: withRefs.doc.rows[3]!.transfer_id, message: 'accepted by an earlier run of this batch under a ref the file no longer has (same recipient, amount, asset and memo): not sent again' });
    // A third identical row is still one more payout.
    writeFileSync(path, ['to,amount,memo,ref', '@acme,1,later-1,L-1', '@bob,1,later-2,L-2', '@bob,1,later-2,L-3', '@acme,1,later-3,L-4', '@bob,1,later-2,L-5', ''].join('\n'));
    const more = await batch([path]);
    expect(more.doc.summary).toMatchObject({ sent: 5, earlier: 4 });
    expect(await paid('later-')).toEqual({ 'later-1': 1, 'later-2': 3, 'later-3': 1 });
  }, 30_000);
});

describe('--new-batch', () => {
  it('pays every row again, on purpose, and says so; a run it leaves unfinished is finished without it', async () => {
    const path = csv('bonus.csv', ['to,amount,memo,ref', '@acme,1,again-1,B-1', '@bob,1,again-2,']);
    expect((await batch([path])).code).toBe(0);
    expect(await paid('again-')).toEqual({ 'again-1': 1, 'again-2': 1 });
    const earlier = await batch([path]);
    expect(earlier.doc.summary).toMatchObject({ sent: 2, earlier: 2 });

    const twice = await batch([path, '--new-batch']);
    expect(twice.code, twice.stderr).toBe(0);
    expect(twice.doc).toMatchObject({ batch_id: 'bonus.csv', new_batch: true, summary: { sent: 2, earlier: 0 } });
    twice.doc.rows.forEach((r, i) => {
      expect(r.transfer_id).not.toBe(earlier.doc.rows[i]!.transfer_id);
      expect(r.message).toBe(`sent again (--new-batch): an earlier run of this batch had it accepted as ${earlier.doc.rows[i]!.transfer_id}`);
    });
    expect(await paid('again-')).toEqual({ 'again-1': 2, 'again-2': 2 });
    // Without the flag, the new instance is the batch: nothing more.
    expect((await batch([path])).doc.summary).toMatchObject({ sent: 2, earlier: 2 });
    expect(await paid('again-')).toEqual({ 'again-1': 2, 'again-2': 2 });

    // A --new-batch run with a failed row: rerunning it with the flag would pay the rest a third time.
    writeFileSync(path, ['to,amount,memo,ref', '@acme,1,again-1,B-1', '@bob,1,again-2,', '@nosuchpayee,1,again-3,B-3', ''].join('\n'));
    const third = await batch([path, '--new-batch']);
    expect(third.code).toBe(4);
    expect(JSON.parse(third.stderr).error.message).toMatch(/run the command again without --new-batch to retry them/);
    writeFileSync(path, ['to,amount,memo,ref', '@acme,1,again-1,B-1', '@bob,1,again-2,', '@acme,1,again-3,B-3', ''].join('\n'));
    const fixed = await batch([path]);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.doc.summary).toMatchObject({ sent: 3, earlier: 2 });
    expect(await paid('again-')).toEqual({ 'again-1': 3, 'again-2': 3, 'again-3': 1 });
  }, 30_000);
});

describe('--new-batch stopped before its first row', () => {
  it('the command run again without the flag still pays the rows again, as asked', async () => {
    const path = csv('stopped.csv', ['to,amount,memo,ref', '@acme,1,stopped-1,S-1', '@bob,1,stopped-2,S-2']);
    expect((await batch([path])).code).toBe(0);
    const ctrlC = new AbortController();
    ctrlC.abort('SIGINT'); // pressed before the first row starts
    const stopped = await runCli(['--json', 'transfer', 'batch', path, '--new-batch'], { env: t.env, interrupt: ctrlC.signal });
    expect(stopped.code).toBe(130);
    expect(JSON.parse(stopped.stdout).rows.map((r: Row) => r.status)).toEqual(['not_sent', 'not_sent']);
    expect(JSON.parse(stopped.stderr).error.message).toMatch(/2 rows not sent; run the command again without --new-batch to send them/);
    expect(await paid('stopped-')).toEqual({ 'stopped-1': 1, 'stopped-2': 1 });
    const again = await batch([path]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.doc.summary).toMatchObject({ sent: 2, earlier: 0 });
    expect(await paid('stopped-')).toEqual({ 'stopped-1': 2, 'stopped-2': 2 });
  }, 30_000);
});

describe('the ledger and its key', () => {
  it('a replaced local key is refused for rows without a ref (they would look new): nothing is sent', async () => {
    const path = csv('keyed.csv', ['to,amount,memo', '@acme,1,keyed-1']);
    expect((await batch([path])).code).toBe(0);
    writeFileSync(join(t.configDir, 'ledger', 'row.key'), `${'ab'.repeat(32)}\n`);
    const r = await t.svc(['transfer', 'batch', path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: batch "keyed\.csv" holds rows without a ref recorded under another local key .*nothing was sent \(batch_key_changed\)$/m);
    const j = await t.svc(['--json', 'transfer', 'batch', path]);
    expect(j).toMatchObject({ code: 2, stdout: '' });
    expect(JSON.parse(j.stderr).error.code).toBe('batch_key_changed');
    expect(await paid('keyed-')).toEqual({ 'keyed-1': 1 });
  }, 30_000);

  it('the local key is made 0600; a damaged key, or a symbolic link in its place, is refused and never replaced', async () => {
    const keyFile = join(t.configDir, 'ledger', 'row.key');
    const path = csv('keyfile.csv', ['to,amount,memo', '@acme,1,keyfile-1']);
    expect((await batch([path])).code).toBe(0);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    const good = readFileSync(keyFile);
    writeFileSync(keyFile, 'not a key\n');
    const damaged = await t.svc(['transfer', 'batch', path]);
    expect(damaged.code).toBe(2);
    expect(damaged.stderr).toMatch(/^error: the key file .*\.key is damaged .*\(unsafe_config\)$/m);
    expect(readFileSync(keyFile, 'utf8')).toBe('not a key\n');
    rmSync(keyFile);
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'svc-key-')), 'planted');
    writeFileSync(elsewhere, good);
    symlinkSync(elsewhere, keyFile);
    const linked = await t.svc(['transfer', 'batch', path]);
    expect(linked.code).toBe(2);
    expect(linked.stderr).toMatch(/is a symbolic link; refusing .*\(unsafe_config\)$/m);
    rmSync(keyFile);
    writeFileSync(keyFile, good, { mode: 0o600 });
    expect((await batch([path])).doc.summary).toMatchObject({ sent: 1, earlier: 1 });
    expect(await paid('keyfile-')).toEqual({ 'keyfile-1': 1 });
  }, 30_000);

  it('a journal of the earlier format (a batch id from the file\'s bytes) is left alone and breaks nothing', async () => {
    const text = 'to,amount,memo,ref\n@acme,1,legacy-1,L-1\n';
    const path = csv('legacy.csv', text.trim().split('\n'));
    const account = await t.svcJson<{ account_id: string }>(['account']);
    const oldId = createHash('sha256').update(text).digest('hex').slice(0, 16);
    const oldName = createHash('sha256').update(`${new URL(t.url).href}\u0000${account.account_id}\u0000${oldId}`).digest('hex').slice(0, 32);
    mkdirSync(join(t.configDir, 'batches'), { recursive: true, mode: 0o700 });
    const oldJournal = join(t.configDir, 'batches', `${oldName}.jsonl`);
    const planted = '{"row":"0123456789abcdef01234567","line":2,"key":"svc-batch-x","generation":0,"status":"failed","error_code":"timeout"}\nnot json\n{"row":';
    writeFileSync(oldJournal, planted, { mode: 0o600 });
    const r = await batch([path]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.doc.summary).toMatchObject({ sent: 1, failed: 0 });
    expect(readFileSync(oldJournal, 'utf8')).toBe(planted);
  }, 30_000);
});
