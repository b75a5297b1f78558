// Pure parts of `transfer batch`: row identity and keys, the batch name, CSV cells, exit-code severity, the progress line.
import { describe, expect, it } from 'vitest';
import { exitCodeOfKind } from '../../../../src/errors.js';
import { csvField, Tally, type ResultLine } from '../../../../src/commands/transfer/batch/results.js';
import { idempotencyKeyOf, RowIdentities } from '../../../../src/core/batch-identity.js';
import { batchNameFor, checkRow, isRowError, type PlannedRow } from '../../../../src/commands/transfer/batch/plan.js';
import type { InputRow } from '../../../../src/commands/transfer/batch/input.js';
import { progressLine } from '../../../../src/io/progress.js';

/** The valid rows of a file, checked in order, with their identities under a local key. */
const plan = (rows: InputRow[], key = Buffer.alloc(32, 7)): PlannedRow[] => {
  const refs = new Map<string, number>();
  const ids = new RowIdentities(key);
  return rows.flatMap((r) => {
    const checked = checkRow(r, true, refs);
    return isRowError(checked) ? [] : [ids.of(checked)];
  });
};
const tally = (lines: ResultLine[]) => {
  const t = new Tally();
  for (const l of lines) t.add(l);
  return t;
};

describe('row identity and keys', () => {
  it('a row with a ref is its ref: the same id when its line, amount, memo or recipient change', () => {
    const a = plan([{ line: 2, fields: { to: '@acme', amount: '1', ref: 'R-1' } }]);
    const b = plan([{ line: 9, fields: { to: '@bob', amount: '2.5', memo: 'edited', ref: 'R-1' } }]);
    expect(b[0]!.rowId).toBe(a[0]!.rowId);
    expect(b[0]!.content).not.toBe(a[0]!.content); // what it pays did change: said when it is not sent again
    expect(plan([{ line: 2, fields: { to: '@acme', amount: '1', ref: 'R-2' } }])[0]!.rowId).not.toBe(a[0]!.rowId);
  });

  it('a row without a ref is what it pays, however written and wherever it lies; identical rows are numbered', () => {
    const a = plan([{ line: 2, fields: { to: '@acme', amount: '7.5', memo: 'm' } }, { line: 3, fields: { to: '@bob', amount: '2' } }]);
    const moved = plan([{ line: 5, fields: { to: '@bob', amount: '2.000', asset: 'usdg' } }, { line: 8, fields: { to: '@ACME', amount: '07.50', memo: 'm' } }]);
    expect(moved.map((r) => r.rowId)).toEqual([a[1]!.rowId, a[0]!.rowId]);
    for (const changed of [{ to: '@acme', amount: '7.51', memo: 'm' }, { to: '@acme', amount: '7.5', memo: 'n' }, { to: '@acme', amount: '7.5', memo: 'm', asset: 'USDC' }, { to: '@bob', amount: '7.5', memo: 'm' }]) {
      expect(plan([{ line: 2, fields: changed }])[0]!.rowId).not.toBe(a[0]!.rowId);
    }
    const twice = plan([{ line: 2, fields: { to: '@bob', amount: '2' } }, { line: 3, fields: { to: '@acme', amount: '1' } }, { line: 4, fields: { to: '@bob', amount: '2' } }]);
    expect(twice[0]!.rowId).toBe(a[1]!.rowId);
    expect(twice[2]!.rowId).toBe(a[1]!.rowId.replace(/-1$/, '-2')); // the second identical row is a second payout
    // Under the local key: the id is no hash anyone could recompute from an amount they guess.
    expect(plan([{ line: 3, fields: { to: '@bob', amount: '2' } }], Buffer.alloc(32, 8))[0]!.rowId).not.toBe(a[1]!.rowId);
  });

  it('keys: the account, the batch, its instance and the row, then the attempt generation after a refusal for good', () => {
    const scope = { accountId: 'acct_1', batch: 'payouts.csv', instance: '' };
    const k0 = idempotencyKeyOf(scope, 'ref-x', 0);
    expect(k0).toMatch(/^svc-batch-[0-9a-f]{32}$/);
    expect(idempotencyKeyOf(scope, 'ref-x', 2)).toBe(`${k0}-r2`);
    for (const other of [{ ...scope, accountId: 'acct_2' }, { ...scope, batch: 'other.csv' }, { ...scope, instance: '0123456789abcdef' }]) {
      expect(idempotencyKeyOf(other, 'ref-x', 0)).not.toBe(k0);
    }
    expect(idempotencyKeyOf(scope, 'ref-y', 0)).not.toBe(k0);
  });

  it('the batch name: --batch-id (a short safe word), else the file\'s own name, or stdin', () => {
    expect(batchNameFor('/data/2026-11/payouts.csv', undefined)).toBe('payouts.csv');
    expect(batchNameFor('-', undefined)).toBe('stdin');
    expect(batchNameFor('payouts.csv', 'payroll-2026_11.v2')).toBe('payroll-2026_11.v2');
    for (const bad of ['has space', '-flag', '../up', '.hidden', '', 'x'.repeat(65), 'a/b']) {
      expect(() => batchNameFor('payouts.csv', bad)).toThrow(/--batch-id must be 1 to 64 characters/);
    }
  });

  it('a repeated ref is an error of its second row', () => {
    const refs = new Map<string, number>();
    expect(isRowError(checkRow({ line: 2, fields: { to: '@acme', amount: '1', ref: 'R' } }, true, refs))).toBe(false);
    expect(checkRow({ line: 5, fields: { to: '@bob', amount: '1', ref: 'R' } }, true, refs)).toMatchObject({ line: 5, message: 'ref "R" is already used on line 2: each row\'s ref must be unique' });
  });

});

describe('the results file as CSV', () => {
  it('a cell a spreadsheet would run as a formula begins with \' (OWASP), then RFC 4180 quoting', () => {
    expect(['=HYPERLINK("http://x","y")', '@SUM(1)', '+1', '-1', '\tx', '\rx', '\0x'].map(csvField)).toEqual([
      `"'=HYPERLINK(""http://x"",""y"")"`, `"'@SUM(1)"`, `"'+1"`, `"'-1"`, `"'\tx"`, `"'\rx"`, `"'\0x"`,
    ]);
    expect(['plain', 'a,b', 'say "hi"', 'x=1', 12, ''].map(csvField)).toEqual(['plain', '"a,b"', '"say ""hi"""', 'x=1', '12', '']);
  });
});

describe('summary and exit code', () => {
  const line = (status: ResultLine['status'], extra: Partial<ResultLine> = {}): ResultLine => ({ line: 1, fields: {}, status, ...extra });
  it('0 all sent, 8 held without failures, else the most severe failure', () => {
    const exit = (lines: ResultLine[]) => {
      const kind = tally(lines).outcome();
      return kind === undefined ? 0 : exitCodeOfKind(kind);
    };
    expect(exit([line('sent'), line('sent', { earlier: true })])).toBe(0);
    expect(exit([line('sent'), line('held')])).toBe(8);
    expect(exit([line('held'), line('failed', { kind: 'not_found' }), line('failed', { kind: 'refused' })])).toBe(6);
    expect(exit([line('failed', { kind: 'failure' }), line('failed', { kind: 'network' }), line('failed', { kind: 'auth' })])).toBe(7);
    expect(exit([line('would_send'), line('would_deny', { kind: 'refused' })])).toBe(6);
  });

  it('totals per asset are exact decimals of what was sent or held', () => {
    const s = tally([
      line('sent', { asset: 'USDG', units: 1_500_000n }), line('held', { asset: 'USDG', units: 1n }),
      line('failed', { asset: 'USDG', units: 9_000_000n }), line('sent', { asset: 'USDC', units: 2_000_000n, earlier: true }), line('skipped'),
    ]).summary();
    expect(s).toEqual({ sent: 2, held: 1, failed: 1, skipped: 1, not_sent: 0, changed: 0, earlier: 1, totals: { USDG: '1.500001', USDC: '2.00' } });
  });
});

describe('progress line', () => {
  it('rows done of total, rate and time left, within the width', () => {
    const l = progressLine(250, 1000, 5000, 80);
    expect(l).toMatch(/^\[#+-+\]  250\/1000  50\/s  ETA 15s$/);
    expect(l.length).toBeLessThan(80);
    expect(progressLine(1000, 1000, 2000, 80)).toMatch(/^\[#+\]  1000\/1000  500\/s$/);
    expect(progressLine(0, 10, 0, 30).length).toBeLessThan(30);
  });
});
