// Profile names are listed in localeCompare's order, compared without ICU's collator
// (src/config/profile-name.ts compareProfileNames): the same sign as localeCompare for every pair.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareProfileNames, PROFILE_NAME_RE } from '../../src/config/profile-name.js';

const sign = (n: number) => Math.sign(n);
const CHARS = '_-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
const name = fc.tuple(fc.constantFrom(...CHARS.slice(2)), fc.array(fc.constantFrom(...CHARS), { maxLength: 31 })).map(([first, rest]) => first + rest.join(''));
// Mostly close pairs (a shared stem, a few characters changed), where the order is decided late.
const close = fc.tuple(name, fc.array(fc.tuple(fc.nat(31), fc.constantFrom(...CHARS)), { maxLength: 3 })).map(([a, edits]) => {
  const b = a.split('');
  for (const [at, c] of edits) b[Math.min(at, b.length - 1)] = c;
  return [a, b.join('')] as const;
});

describe('compareProfileNames', () => {
  it('orders a mixed list exactly as localeCompare does', () => {
    const names = ['a-b', 'a_b', 'ab', 'a0', 'aB', 'Ab', 'AB', 'a', 'A', 'a-', 'a--b', 'a-B', 'A-b', 'prod', 'Prod', 'prod-2', 'prod_2', 'prod2', 'z', '0'];
    expect([...names].sort(compareProfileNames)).toEqual([...names].sort((a, b) => a.localeCompare(b)));
  });

  it('gives localeCompare’s sign for any two names that keep the rule', () => {
    fc.assert(
      fc.property(fc.oneof(fc.tuple(name, name), close), ([a, b]) => {
        expect(PROFILE_NAME_RE.test(a)).toBe(true); // b may start with '_' or '-' after an edit: then localeCompare decides
        expect(sign(compareProfileNames(a, b)), `${a} vs ${b}`).toBe(sign(a.localeCompare(b)));
        expect(sign(compareProfileNames(b, a)) + sign(compareProfileNames(a, b))).toBe(0);
      }),
      { numRuns: 5_000 },
    );
  });

  it('falls back to localeCompare for a name outside the rule (edited in by hand)', () => {
    for (const [a, b] of [['é', 'e'], ['prodé', 'prode'], ['a b', 'ab'], ['ä', 'z'], ['ab', 'ab\u200b'], ['a_é', 'b'], ['_a', 'a']]) {
      expect(sign(compareProfileNames(a!, b!)), `${a} vs ${b}`).toBe(sign(a!.localeCompare(b!)));
    }
  });
});
