// scripts/check-clocks.mjs (run by `npm test`) on small trees: it must see every way of reading
// the machine's clock outside the two clock modules, and nothing else.
import { describe, expect, it } from 'vitest';
import { checkTree } from './tree.js';

const check = (files: Record<string, string>) => checkTree('check-clocks.mjs', files);

describe('check-clocks', () => {
  it('passes the clock modules, parsing, dates from values, and words in comments and strings', () => {
    const r = check({
      'clock.ts': 'export const realNow = () => Date.now();\n',
      'sandbox/clock.ts': 'export const now = Date.now;\nexport const d = () => new Date();\n',
      'io/time.ts': [
        '// Date.now() is not called here, nor new Date()',
        "export const at = (ms: number, text: string) => [new Date(ms), Date.parse(text), 'Date.now()', \"new Date()\"];",
        "export const label = (ms: number) => `at ${new Date(ms).toISOString()}`;",
        '',
      ].join('\n'),
    });
    expect(r.out).toContain('no clock read outside the clock modules among 3 modules');
    expect(r.code).toBe(0);
  });

  it('fails on Date.now (called or passed), new Date() and Date(), naming file and line, template parts included', () => {
    const r = check({
      'api/retry.ts': 'export function f(now = Date.now()) {\n  return now;\n}\n',
      'io/progress.ts': 'export function g(now: () => number = Date.now) {\n  return now;\n}\n',
      'commands/listen.ts': "const a = 1;\nexport const t = () => `${new Date().toISOString()} ok`;\n",
      'commands/old.ts': 'export const s = Date();\n',
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain('src/api/retry.ts:1: Date.now');
    expect(r.out).toContain('src/io/progress.ts:1: Date.now');
    expect(r.out).toContain('src/commands/listen.ts:2: new Date()');
    expect(r.out).toContain('src/commands/old.ts:1: Date()');
  });
});
