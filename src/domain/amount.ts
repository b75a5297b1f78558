// Exact decimal amounts as bigint minor units. Never a float anywhere.
import { decimalsOf } from './assets.js';

export type AmountResult = { ok: true; units: bigint } | { ok: false; rule: string };

const DECIMAL_RE = /^(\d+)(?:\.(\d+))?$/;

/**
 * Parses a transfer amount: a plain positive decimal string with at most the asset's decimals.
 * Rejects signs, exponents, spaces, zero and empty strings (DESIGN.md "Amounts").
 */
export function parseAmount(text: string, asset: string): AmountResult {
  const decimals = decimalsOf(asset);
  if (typeof text !== 'string' || text.length === 0) return { ok: false, rule: 'must be a non-empty decimal string' };
  if (text.length > 64) return { ok: false, rule: 'is too long' };
  const m = DECIMAL_RE.exec(text);
  if (!m) return { ok: false, rule: 'must be a plain decimal like 12.50 (no sign, exponent or spaces)' };
  const whole = m[1]!;
  const frac = m[2] ?? '';
  if (frac.length > decimals) return { ok: false, rule: `must have at most ${decimals} decimal places for ${asset}` };
  const units = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
  if (units === 0n) return { ok: false, rule: 'must be greater than zero' };
  return { ok: true, units };
}

/** Parses a non-negative decimal (policy limits); zero allowed. */
export function parseNonNegativeDecimal(text: string, decimals: number): bigint | undefined {
  const m = DECIMAL_RE.exec(text);
  if (!m) return undefined;
  const frac = m[2] ?? '';
  if (frac.length > decimals) return undefined;
  return BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
}

/** Formats minor units as a decimal string, trimming trailing zeros but keeping two places. */
export function formatUnits(units: bigint, asset: string, opts: { minFraction?: number } = {}): string {
  const decimals = decimalsOf(asset);
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  let frac = (abs % base).toString().padStart(decimals, '0');
  const minFraction = opts.minFraction ?? 2;
  while (frac.length > minFraction && frac.endsWith('0')) frac = frac.slice(0, -1);
  return `${neg ? '-' : ''}${whole}${frac.length ? `.${frac}` : ''}`;
}
