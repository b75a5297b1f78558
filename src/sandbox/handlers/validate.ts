// Small checks for request bodies and queries; each failure is a 400 invalid_request whose
// message names the field and the rule.
import { parseAmount } from '../../domain/amount.js';
import { DEFAULT_ASSET, isKnownAsset, KNOWN_ASSETS } from '../../domain/assets.js';
import { invalid } from '../http/respond.js';

export type JsonObject = Record<string, unknown>;

/** The body must be a JSON object. */
export function objectBody(value: unknown): JsonObject {
  if (value === undefined) throw invalid('request body is required: a JSON object');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('request body must be a JSON object');
  return value as JsonObject;
}

/** An own property (never one inherited from Object.prototype). */
export function field(body: JsonObject, name: string): unknown {
  return Object.hasOwn(body, name) ? body[name] : undefined;
}

export function requiredString(body: JsonObject, name: string): string {
  const v = field(body, name);
  if (v === undefined || v === null) throw invalid(`${name} is required`);
  if (typeof v !== 'string') throw invalid(`${name} must be a string`);
  return v;
}

export function optionalString(body: JsonObject, name: string): string | undefined {
  const v = field(body, name);
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalid(`${name} must be a string`);
  return v;
}

export function optionalBoolean(body: JsonObject, name: string): boolean | undefined {
  const v = field(body, name);
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw invalid(`${name} must be true or false`);
  return v;
}

/** `asset`: optional, default USDG, one of the known assets (exact spelling). */
export function assetField(body: JsonObject): string {
  const asset = optionalString(body, 'asset') ?? DEFAULT_ASSET;
  if (!isKnownAsset(asset)) throw invalid(`asset must be one of ${KNOWN_ASSETS.join(', ')} (got "${asset.slice(0, 20)}")`);
  return asset;
}

/** `amount`: a decimal string (not a JSON number), > 0, at most the asset's decimals. */
export function amountField(body: JsonObject, asset: string): bigint {
  const v = field(body, 'amount');
  if (v === undefined || v === null) throw invalid('amount is required');
  if (typeof v !== 'string') throw invalid('amount must be a decimal string such as "12.50", not a JSON number');
  const r = parseAmount(v, asset);
  if (!r.ok) throw invalid(`amount ${r.rule}`);
  return r.units;
}

/** A query parameter given at most once; undefined when absent. */
export function queryParam(query: URLSearchParams, name: string): string | undefined {
  const all = query.getAll(name);
  if (all.length > 1) throw invalid(`${name} must be given at most once`);
  return all[0];
}

/** A whole number in [min, max] from a query parameter. */
export function intParam(query: URLSearchParams, name: string, dflt: number, min: number, max: number): number {
  const raw = queryParam(query, name);
  if (raw === undefined) return dflt;
  const rule = `${name} must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}`;
  if (!/^\d{1,16}$/.test(raw)) throw invalid(rule);
  const n = Number(raw);
  if (n < min || n > max) throw invalid(rule);
  return n;
}

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+\- ]\d{2}:?\d{2}))?$/;

/**
 * An ISO 8601 timestamp: a date (UTC midnight) or a date-time with `Z` or an offset. A space in
 * place of `+` in the offset is accepted (an unencoded `+` in a query string arrives as a space).
 * Returns epoch ms (floored) and whether a sub-millisecond fraction was cut off.
 */
export function parseTimestamp(text: string): { ms: number; fraction: boolean } | undefined {
  const m = ISO_RE.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  if (h !== undefined && zone === undefined) return undefined;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const base = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(base);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  const digits = (frac ?? '').padEnd(9, '0');
  const millis = Number(digits.slice(0, 3));
  const fraction = /[1-9]/.test(digits.slice(3));
  let offsetMin = 0;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const hhmm = zone.slice(1).replace(':', '');
    const oh = Number(hhmm.slice(0, 2));
    const om = Number(hhmm.slice(2, 4));
    if (oh > 23 || om > 59) return undefined;
    offsetMin = sign * (oh * 60 + om);
  }
  return { ms: base + millis - offsetMin * 60_000, fraction };
}
