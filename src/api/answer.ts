// What an answer becomes: a 2xx its data (depth-checked, parsed, nulls dropped, validated), a
// 3xx an error (redirects are never followed), anything else the service's error, typed.
import type { $ZodType } from 'zod/v4/core';
import { safeParse } from 'zod/mini';
import { ApiError, CliError } from '../errors.js';
import { apiErrorFromBody } from './errors.js';
import type { HintContext } from './hints.js';
import { MAX_NESTING, nestsDeeperThan } from './json-depth.js';

/** The data of a 2xx answer, checked against `schema` when one is given. */
export function dataOf<T>(text: string, schema: $ZodType<T> | undefined, method: string, path: string): T {
  // Everything after the parse (null-stripping, validation, printing) recurses: refuse depth first.
  if (nestsDeeperThan(text, MAX_NESTING)) {
    throw new CliError('failure', 'invalid_response', `unexpected response from ${method} ${path}: nested deeper than ${MAX_NESTING} levels`);
  }
  let json: unknown;
  try {
    json = text.length ? JSON.parse(text) : {};
  } catch {
    throw new CliError('failure', 'invalid_response', `unexpected response from ${method} ${path}: not JSON`);
  }
  if (!schema) return json as T;
  // A field set to null is a field not set: our schemas describe present fields only. A text
  // without "null" anywhere holds no null to drop (a 100-row page is not walked for nothing).
  const parsed = safeParse(schema, text.includes('null') ? withoutNulls(json) : json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'body';
    throw new CliError('failure', 'invalid_response', `unexpected response from ${method} ${path}: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** The error a non-2xx answer carries. */
export function errorOf(status: number, text: string, requestId: string | undefined, location: string | undefined, hints: HintContext): ApiError {
  if (status >= 300 && status < 400) {
    // Never followed: the key would go to wherever the Location points.
    return new ApiError(status, 'redirect_not_followed', `the service answered ${status}${location ? `, a redirect to ${location}` : ''}; redirects are not followed, so nothing was sent there`, requestId, {},
      'set the base URL (--base-url or the profile) to the address the service really answers on');
  }
  return apiErrorFromBody(status, text, requestId, hints);
}

/** Drops object keys whose value is null, at every depth (array elements are kept). */
export function withoutNulls(value: unknown): unknown {
  // In place: the value is a JSON.parse result nobody else holds (a 100-row page is ~60 KB).
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = withoutNulls(value[i]);
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  const rec = value as Record<string, unknown>;
  for (const k in rec) {
    if (rec[k] === null) delete rec[k];
    else if (typeof rec[k] === 'object') withoutNulls(rec[k]);
  }
  return rec;
}
