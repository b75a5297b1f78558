// Canary amounts: a test that says "this amount appears nowhere" searches text full of ids,
// hashes and timestamps, so a short or round number (150, 2.25, 7341, 75000000) turns up there by
// chance and fails a good change. A canary has many significant digits, several different ones,
// and minor units, and is searched for in its decimal form and its minor-units form
// (docs/confidentiality.md "Canaries"). test/meta/canaries.test.ts keeps weak ones out.
import { expect } from 'vitest';
import { parseAmount } from '../../src/domain/amount.js';

/** Fewer significant digits than this (leading and trailing zeros do not count) can match by chance. */
export const MIN_SIGNIFICANT_DIGITS = 7;
/** A run of one or two digits repeated (42424242, 99999999) is no better than a short one. */
export const MIN_DISTINCT_DIGITS = 4;

/** A needle that is a number and nothing else: optional quotes, sign, thousands commas, one dot. */
const NUMERIC = /^["']?-?\d[\d,]*(?:\.\d+)?["']?$/;

/** Why this numeric needle could be found by chance, or undefined when it is distinctive (or not a number). */
export function weakNumber(needle: string): string | undefined {
  if (!NUMERIC.test(needle)) return undefined;
  const significant = needle.replace(/\D/g, '').replace(/^0+/, '').replace(/0+$/, '');
  if (significant.length < MIN_SIGNIFICANT_DIGITS) return `${significant.length} significant digits (at least ${MIN_SIGNIFICANT_DIGITS})`;
  const distinct = new Set(significant).size;
  if (distinct < MIN_DISTINCT_DIGITS) return `${distinct} different digits (at least ${MIN_DISTINCT_DIGITS})`;
  return undefined;
}

export interface Canary {
  /** As typed: `7319.4711`. */
  readonly amount: string;
  /** In minor units, as a ciphertext's plaintext or a sealed ledger would hold it: `7319471100`. */
  readonly units: string;
}

/** A canary amount of `asset`; throws when it could be found by chance or the asset cannot hold it. */
export function canary(amount: string, asset = 'USDG'): Canary {
  const parsed = parseAmount(amount, asset);
  if (!parsed.ok) throw new Error(`canary ${amount}: ${parsed.rule}`);
  const units = parsed.units.toString();
  for (const form of [amount, units]) {
    const weak = weakNumber(form);
    if (weak) throw new Error(`canary ${form} has ${weak}: it could turn up in an id or a timestamp`);
  }
  return { amount, units };
}

/** Neither the decimal form nor the minor-units form of `c` is in `text`. */
export function expectNoCanary(text: string, c: Canary, where = 'the text'): void {
  expect(text, `${where} holds the amount ${c.amount}`).not.toContain(c.amount);
  expect(text, `${where} holds the amount ${c.amount} in minor units (${c.units})`).not.toContain(c.units);
}
