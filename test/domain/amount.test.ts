import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatUnits, parseAmount, parseNonNegativeDecimal } from '../../src/domain/amount.js';

describe('parseAmount', () => {
  it.each([
    ['1', 1_000_000n],
    ['0.000001', 1n],
    ['12.5', 12_500_000n],
    ['7341.902817', 7_341_902_817n],
    ['00012.340000', 12_340_000n],
    ['123456789012345678901234567890', 123456789012345678901234567890_000000n],
  ])('parses %s exactly', (text, units) => {
    expect(parseAmount(text, 'USDG')).toEqual({ ok: true, units });
  });

  it.each([
    ['', 'non-empty'],
    ['0', 'greater than zero'],
    ['0.000000', 'greater than zero'],
    ['-1', 'plain decimal'],
    ['+1', 'plain decimal'],
    ['1e3', 'plain decimal'],
    [' 1', 'plain decimal'],
    ['1.', 'plain decimal'],
    ['.5', 'plain decimal'],
    ['1,5', 'plain decimal'],
    ['0x10', 'plain decimal'],
    ['1.0000001', 'at most 6 decimal places'],
    ['Infinity', 'plain decimal'],
    ['NaN', 'plain decimal'],
  ])('rejects %j with a rule', (text, rule) => {
    const r = parseAmount(text, 'USDG');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.rule).toContain(rule);
  });

  it('never loses precision (round trip through format)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 30n }), (units) => {
        const text = formatUnits(units, 'USDG', { minFraction: 0 });
        const back = parseAmount(text, 'USDG');
        return back.ok && back.units === units;
      }),
    );
  });
});

describe('formatUnits', () => {
  it('keeps two decimals by default and trims the rest', () => {
    expect(formatUnits(1_000_000n, 'USDG')).toBe('1.00');
    expect(formatUnits(1_234_500n, 'USDG')).toBe('1.2345');
    expect(formatUnits(1n, 'USDG')).toBe('0.000001');
    expect(formatUnits(-2_500_000n, 'USDC')).toBe('-2.50');
    expect(formatUnits(0n, 'USDG', { minFraction: 0 })).toBe('0');
  });
});

describe('parseNonNegativeDecimal', () => {
  it('accepts zero and rejects signs', () => {
    expect(parseNonNegativeDecimal('0', 6)).toBe(0n);
    expect(parseNonNegativeDecimal('100.5', 6)).toBe(100_500_000n);
    expect(parseNonNegativeDecimal('-1', 6)).toBeUndefined();
    expect(parseNonNegativeDecimal('1.1234567', 6)).toBeUndefined();
  });
});
