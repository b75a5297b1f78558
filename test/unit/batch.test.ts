// Pure parts of `transfer batch`: row identity and keys, exit-code severity, the progress line.
import { describe, expect, it } from 'vitest';
import { batchExitCode, summarize, type ResultLine } from '../../src/commands/transfer/batch-out.js';
import { batchIdFor, idempotencyKeyOf, planBatch } from '../../src/commands/transfer/batch-plan.js';
import type { BatchInput } from '../../src/commands/transfer/batch-input.js';
import { progressLine } from '../../src/io/progress.js';

const input = (rows: BatchInput['rows']): BatchInput => ({ rows, columns: ['to', 'amount', 'ref'], contentHash: 'ab'.repeat(32) });

describe('row identity and keys', () => {
  it('a row with a ref keeps its key when lines move; without one, its line and content decide', () => {
    const a = planBatch(input([{ line: 2, fields: { to: '@acme', amount: '1', ref: 'R-1' } }, { line: 3, fields: { to: '@bob', amount: '2' } }]), 'b1', true);
    const b = planBatch(input([{ line: 9, fields: { to: '@acme', amount: '1', ref: 'R-1' } }, { line: 4, fields: { to: '@bob', amount: '2' } }]), 'b1', true);
    expect(a.rows[0]!.rowId).toBe(b.rows[0]!.rowId);
    expect(a.rows[1]!.rowId).not.toBe(b.rows[1]!.rowId);
    const c = planBatch(input([{ line: 3, fields: { to: '@bob', amount: '2.5' } }]), 'b1', true);
    expect(c.rows[0]!.rowId).not.toBe(a.rows[1]!.rowId);
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
    expect(batchExitCode([line('sent'), line('sent', { earlier: true })])).toBe(0);
    expect(batchExitCode([line('sent'), line('held')])).toBe(8);
    expect(batchExitCode([line('held'), line('failed', { exitCode: 4 }), line('failed', { exitCode: 6 })])).toBe(6);
    expect(batchExitCode([line('failed', { exitCode: 1 }), line('failed', { exitCode: 7 }), line('failed', { exitCode: 3 })])).toBe(7);
    expect(batchExitCode([line('would_send'), line('would_deny', { exitCode: 6 })])).toBe(6);
  });

  it('totals per asset are exact decimals of what was sent or held', () => {
    const s = summarize([
      line('sent', { asset: 'USDG', units: 1_500_000n }), line('held', { asset: 'USDG', units: 1n }),
      line('failed', { asset: 'USDG', units: 9_000_000n }), line('sent', { asset: 'USDC', units: 2_000_000n, earlier: true }), line('skipped'),
    ]);
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
