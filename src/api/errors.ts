// Turns any error body shape into one ApiError carrying status, code, message and request id,
// and the hint its code has everywhere (src/api/hints.ts) when the caller says where it sent it.
import { ApiError } from '../errors.js';
import { hintForApiError, type HintContext } from './hints.js';
import { cutDeeperThan, MAX_NESTING, nestingDepth } from './json-depth.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

const DEFAULT_CODES: Record<number, string> = {
  400: 'invalid_request', 401: 'unauthorized', 402: 'insufficient_balance', 403: 'forbidden',
  404: 'not_found', 409: 'conflict', 422: 'unprocessable', 429: 'rate_limited',
};

/** Where code, message and request_id live in every shape read here (`{errors:[{...}]}` is the deepest). */
const ENVELOPE_DEPTH = 3;

/**
 * Accepts `{error:{code,message}}`, `{code,message}`, `{error:"code",message}`, `{errors:[..]}` or text.
 * A body nested deeper than MAX_NESTING (as for a 2xx) would overflow the stack once printed with
 * --json: only its envelope is read (code, message, request_id) and its other fields are dropped.
 */
export function apiErrorFromBody(status: number, rawBody: string, headerRequestId?: string, hints?: HintContext): ApiError {
  const tooDeep = nestingDepth(rawBody) > MAX_NESTING;
  let body: unknown;
  try {
    body = rawBody ? JSON.parse(tooDeep ? cutDeeperThan(rawBody, ENVELOPE_DEPTH) : rawBody) : undefined;
  } catch {
    body = undefined;
  }
  let inner: Json = {};
  if (isObj(body)) {
    if (isObj(body.error)) inner = body.error;
    else if (Array.isArray(body.errors) && isObj(body.errors[0])) inner = body.errors[0];
    else inner = body;
  }
  const code =
    str(inner.code) ?? (isObj(body) ? str(body.error) : undefined) ?? str(inner.type) ?? DEFAULT_CODES[status] ??
    (status >= 500 ? 'server_error' : 'http_error');
  const message =
    str(inner.message) ?? (isObj(body) ? str(body.message) : undefined) ??
    (body === undefined && rawBody && rawBody.length < 200 && !rawBody.includes('<') ? rawBody.trim() : undefined) ??
    `the service answered HTTP ${status}`;
  const requestId = str(inner.request_id) ?? (isObj(body) ? str(body.request_id) : undefined) ?? headerRequestId;
  const details: Json = {};
  if (!tooDeep) for (const [k, v] of Object.entries(inner)) if (!['code', 'message', 'request_id'].includes(k)) details[k] = v;
  return new ApiError(status, code, message, requestId, details, hints ? hintForApiError(code, status, hints, message) : undefined);
}
