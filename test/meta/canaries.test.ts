// No test says a short or round number is absent (docs/confidentiality.md "Canaries"): such a
// needle turns up in an id, a hash or a timestamp by chance (`2.25` in `…:12.253Z`, `7341` in a
// random id, `150` in a request id's hex) and fails a good change. The scanner on small sources,
// then on every file of test/.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canary, weakNumber } from '../helpers/canary.js';
import { ROOT } from '../helpers/run.js';
import { scanSource, scanTree } from './canary-scan.js';

const found = (source: string) => scanSource('x.test.ts', source).map((f) => `${f.at} ${f.needle}`);

describe('weakNumber', () => {
  it('counts significant digits (not leading or trailing zeros) and different digits', () => {
    for (const weak of ['2.25', '7341', '150', '75000000', '"75"', '-4', '1000000000', '60.00', '987654', '42424242', '50000001', '1,000.00']) expect(weakNumber(weak), weak).toBeDefined();
    for (const strong of ['7319.4711', '7319471100', '2.258163', '0.002258163', '12.345678', '-4.718253', '7,319.4711']) expect(weakNumber(strong), strong).toBeUndefined();
    for (const word of ['error', 'P-1', 'svc_test_', '12.5 USDG', 'v1.2.3', '']) expect(weakNumber(word), word).toBeUndefined();
  });

  it('canary() refuses an amount that could be found by chance or that the asset cannot hold', () => {
    expect(canary('7319.4711')).toEqual({ amount: '7319.4711', units: '7319471100' });
    expect(() => canary('150')).toThrow(/canary 150 has 2 significant digits/);
    expect(() => canary('2.25')).toThrow(/canary 2\.25 has 3 significant digits/);
    expect(() => canary('1.12345678')).toThrow(/at most 6 decimal places/);
  });
});

describe('the scanner', () => {
  it('finds weak needles in negative assertions: literals, regexp alternatives, consts, loop lists, RegExp()', () => {
    const source = [
      "expect(journals()).not.toMatch(/noref-|2\\.25/);", // 1
      'for (const needle of [', // 2
      "  'sealed', sub.body.secret,", // 3
      "  '7341', '12.345678',", // 4
      ']) {', // 5
      '  expect(text, needle).not.toContain(needle);', // 6
      '}', // 7
      "const AMOUNT = '150';", // 8
      'expect(r.stderr).not.toContain(AMOUNT);', // 9
      'expect(res.text).not.toMatch(/75000000|"75"|memo"/);', // 10
      "expect(out).toEqual(expect.not.stringContaining('600'));", // 11
      "assert.doesNotMatch(log, /^(12\\.5|lunch)$/);", // 12
      "const MEMO = 'memo-x'; const SMALL = '4.5';", // 13
      "expect(f).not.toMatch(new RegExp(`${MEMO}|${SMALL.replace('.', '\\\\.')}`));", // 14
      "expect(s).not.toMatch(/1\\.1234567|-4/);", // 15
      "expectNoCanary(text, '42.42');", // 16
    ].join('\n');
    expect(found(source)).toEqual([
      'x.test.ts:1 2.25', 'x.test.ts:4 7341', 'x.test.ts:8 150', 'x.test.ts:10 75000000', 'x.test.ts:10 "75"', 'x.test.ts:11 600',
      'x.test.ts:12 12.5', 'x.test.ts:13 4.5', 'x.test.ts:15 -4', 'x.test.ts:16 42.42',
    ]);
  });

  it('leaves alone what is no numeric canary: words, keys, character classes, positive assertions, comments', () => {
    const source = [
      "expect(r.stderr).not.toContain('error');",
      "expect(r.stderr).not.toContain('approved 0');",
      "expect(out).not.toContain(t.keyOf('@alice'));",
      'expect(out).not.toMatch(/[\\u0000-\\u0008\\u000b-\\u001f]/);',
      "expect(rows).not.toMatch(/acct_|pol_|0x[0-9a-fA-F]|P-\\d/);",
      "expect(journal).not.toMatch(/7319\\.4711|7319471100|canary-memo/);",
      "const res = await send({ to: '@acme', amount: '12.5' });",
      'expect(res.body.id).not.toContain(res.body.other); // not 150',
      "expect(r.stdout).toContain('150'); expect(r.stdout).toMatch(/2\\.25/); expect(n).not.toBe('150');",
      "function f(needle: string) { expect(x).not.toContain(needle); } const needle = '150';",
    ].join('\n');
    expect(found(source)).toEqual([]);
  });
});

describe('the tests of this repository', () => {
  it('say no short or round number is absent', () => {
    const weak = scanTree(ROOT, join(ROOT, 'test')).map((f) => `${f.at}: ${JSON.stringify(f.needle)} has ${f.why}`);
    expect(weak, `weak canaries (choose a distinctive amount, docs/confidentiality.md "Canaries"):\n${weak.join('\n')}`).toEqual([]);
  });
});
