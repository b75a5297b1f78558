// Small checks for request bodies and queries; each failure is a 400 invalid_request whose
// message names the field and the rule.
import { parseAmount } from '../../domain/amount.js';
import { DEFAULT_ASSET, isKnownAsset, KNOWN_ASSETS } from '../../domain/assets.js';
import { OFFSET_MAX, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, parseWholeNumber, wholeNumberRule } from '../../domain/paging.js';
import { invalid } from '../faults.js';

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

/** A whole number in [min, max] from a query parameter (digits only; the message gives the range). */
export function intParam(query: URLSearchParams, name: string, dflt: number, min: number, max: number): number {
  const raw = queryParam(query, name);
  if (raw === undefined) return dflt;
  const n = parseWholeNumber(raw, min, max);
  if (n === undefined) throw invalid(`${name} must be ${wholeNumberRule(min, max)}`);
  return n;
}

/**
 * The paging and status filter of a list: `limit` (1 to 100, default 20), `offset` (0 to
 * 2^53 - 1, default 0: src/domain/paging.ts) and an optional `status` that must be one of `statuses`.
 */
export function pageParams<S extends string>(query: URLSearchParams, statuses: readonly S[]): { limit: number; offset: number; status?: S } {
  const limit = intParam(query, 'limit', PAGE_LIMIT_DEFAULT, 1, PAGE_LIMIT_MAX);
  const offset = intParam(query, 'offset', 0, 0, OFFSET_MAX);
  const status = queryParam(query, 'status');
  if (status === undefined) return { limit, offset };
  if (!(statuses as readonly string[]).includes(status)) throw invalid(`status must be one of ${statuses.join(', ')}`);
  return { limit, offset, status: status as S };
}
