// Pure parts of `transfer batch`: row identity and keys, exit-code severity, the progress line.
import { describe, expect, it } from 'vitest';
import { exitCodeOfKind } from '../../../../src/errors.js';
import { Tally, type ResultLine } from '../../../../src/commands/transfer/batch/results.js';
import { batchIdFor, checkRow, idempotencyKeyOf, isRowError, type PlannedRow } from '../../../../src/commands/transfer/batch/plan.js';
import type { InputRow } from '../../../../src/commands/transfer/batch/input.js';
import { progressLine } from '../../../../src/io/progress.js';

/** The valid rows of a file, checked in order. */
const plan = (rows: InputRow[]): PlannedRow[] => {
  const refs = new Map<string, number>();
  return rows.map((r) => checkRow(r, true, refs)).filter((r): r is PlannedRow => !isRowError(r));
};
const tally = (lines: ResultLine[]) => {
  const t = new Tally();
  for (const l of lines) t.add(l);
  return t;
};

describe('row identity and keys', () => {
  it('a row with a ref keeps its key when lines move; without one, its line, recipient and asset decide (never the amount)', () => {
    const a = plan([{ line: 2, fields: { to: '@acme', amount: '1', ref: 'R-1' } }, { line: 3, fields: { to: '@bob', amount: '2' } }]);
    const b = plan([{ line: 9, fields: { to: '@acme', amount: '1', ref: 'R-1' } }, { line: 4, fields: { to: '@bob', amount: '2' } }]);
    expect(a[0]!.rowId).toBe(b[0]!.rowId);
    expect(a[1]!.rowId).not.toBe(b[1]!.rowId);
    const edited = plan([{ line: 3, fields: { to: '@bob', amount: '2.5', memo: 'changed' } }]);
    expect(edited[0]!.rowId).toBe(a[1]!.rowId);
    const other = plan([{ line: 3, fields: { to: '@acme', amount: '2' } }, { line: 4, fields: { to: '@bob', amount: '2', asset: 'USDC' } }]);
    expect(other[0]!.rowId).not.toBe(a[1]!.rowId);
    expect(other[1]!.rowId).not.toBe(b[1]!.rowId);
  });

  it('a repeated ref is an error of its second row', () => {
    const refs = new Map<string, number>();
    expect(isRowError(checkRow({ line: 2, fields: { to: '@acme', amount: '1', ref: 'R' } }, true, refs))).toBe(false);
    expect(checkRow({ line: 5, fields: { to: '@bob', amount: '1', ref: 'R' } }, true, refs)).toMatchObject({ line: 5, message: 'ref "R" is already used on line 2: each row\'s ref must be unique' });
  });

  it('keys: the batch id, the row, and the attempt generation after a refusal for good', () => {
    expect(idempotencyKeyOf('b1', 'r'.repeat(24), 0)).toBe(`svc-batch-b1-${'r'.repeat(24)}`);
    expect(idempotencyKeyOf('b1', 'r'.repeat(24), 2)).toBe(`svc-batch-b1-${'r'.repeat(24)}-r2`);
    expect(batchIdFor(undefined, 'cd'.repeat(32))).toBe('cdcdcdcdcdcdcdcd');
    expect(batchIdFor('payroll-2026_11', 'x')).toBe('payroll-2026_11');
    expect(() => batchIdFor('has space', 'x')).toThrow(/--batch-id must be 1 to 64 characters/);
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
    expect(s).toEqual({ sent: 2, held: 1, failed: 1, skipped: 1, not_sent: 0, earlier: 1, totals: { USDG: '1.500001', USDC: '2.00' } });
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
