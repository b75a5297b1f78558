// The sandbox's cheap ISO times (src/sandbox/iso-time.ts) are Date#toISOString's, character for character.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/sandbox/iso-time.js';

describe('isoTime', () => {
  it('writes what toISOString writes, for any time, in any order (the kept second changes under it)', () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    fc.assert(fc.property(fc.array(fc.oneof(
      fc.integer({ min: -8.64e15, max: 8.64e15 }), // every valid Date, six-digit years included
      fc.integer({ min: 1.7e12, max: 1.8e12 }), // around now
      fc.integer({ min: -2000, max: 2000 }), // around 1970, both sides
    ), { minLength: 1, maxLength: 20 }), (times) => {
      for (const ms of times) expect(isoTime(ms)).toBe(iso(ms));
    }), { numRuns: 500 });
    for (const ms of [0, -1, 999, 1000, -1000, -999, 1.7e12 + 0.5, 253402300799999, 253402300800000, -62167219200000, -62167219200001]) expect(isoTime(ms)).toBe(iso(ms));
  });
});
