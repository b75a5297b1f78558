// The thin HTTP layer every command uses: auth, JSON, timeouts, idempotency keys, retries,
// typed errors, and --verbose tracing with the key masked.
import type { $ZodType } from 'zod/v4/core';
import { safeParse } from 'zod/mini';
import { ApiError, CliError, NetworkError } from '../errors.js';
import { maskSecret } from '../config/mask.js';
import { formatDuration } from '../domain/duration.js';
import { NetworkBudget } from './budget.js';
import { DEFAULT_TIMEOUT_MS, MAX_RESPONSE_BYTES } from './limits.js';
import { dispatcherFor } from './dispatcher.js';
import { httpRequest } from './undici.js';
import { apiErrorFromBody } from './errors.js';
import { connectionHint, isLoopbackUrl, type HintContext } from './hints.js';
import { describeNetFailure } from '../domain/net-failure.js';
import { checkBaseUrl, joinUrl } from './url.js';
import { backoffDelay, DEFAULT_TIMING, isRetryableStatus, MAX_TRIES, type RetryTiming } from './retry.js';
import { unlessAborted } from './abortable.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
export type Query = Record<string, string | number | undefined>;

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  /** The command's network time (--timeout), shared by every request it makes. */
  budget?: () => NetworkBudget;
  /** Without a budget: the network time of each request() call, retries included. */
  timeoutMs?: number;
  userAgent?: string;
  /** Called with one line per request/response when --verbose is on. */
  trace?: (line: string) => void;
  retryTiming?: RetryTiming;
  sleep?: (ms: number) => Promise<void>;
  /** Told the server's clock from each successful answer's Date header. */
  onServerTime?: (serverTime: Date) => void;
  /** Extra headers (the sandbox control token, for instance). */
  headers?: Record<string, string>;
  /** Where proxy settings come from (HTTPS_PROXY, NO_PROXY); default: none, direct connections. */
  env?: NodeJS.ProcessEnv;
}

export interface RequestOptions<T> {
  query?: Query;
  body?: unknown;
  /** POSTs get a generated key when none is given. */
  idempotencyKey?: string;
  schema?: $ZodType<T>;
  /** Aborting it (Ctrl-C during a wait) ends the request at once with an `interrupted` error. */
  signal?: AbortSignal;
}

export interface ApiResponse<T> {
  status: number;
  data: T;
  requestId?: string;
  /** The server's clock from its Date header (the sandbox's clock may run ahead of ours). */
  serverTime?: Date;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export { MAX_RESPONSE_BYTES } from './limits.js';

class TooLarge extends Error {}

/** Reads a body as UTF-8 text, giving up (and closing it) past `limit` bytes. */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw new TooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class ApiClient {
  private readonly base: URL;
  constructor(private readonly opts: ClientOptions) {
    this.base = checkBaseUrl(opts.baseUrl);
  }

  get baseUrl(): string {
    return this.base.href;
  }

  get<T>(path: string, opts: RequestOptions<T> = {}): Promise<ApiResponse<T>> {
    return this.request('GET', path, opts);
  }
  post<T>(path: string, opts: RequestOptions<T> = {}): Promise<ApiResponse<T>> {
    return this.request('POST', path, opts);
  }
  patch<T>(path: string, opts: RequestOptions<T> = {}): Promise<ApiResponse<T>> {
    return this.request('PATCH', path, opts);
  }
  delete<T>(path: string, opts: RequestOptions<T> = {}): Promise<ApiResponse<T>> {
    return this.request('DELETE', path, opts);
  }

  async request<T>(method: Method, path: string, opts: RequestOptions<T> = {}): Promise<ApiResponse<T>> {
    const url = joinUrl(this.base, path, opts.query);
    // node:crypto costs ~5 ms to load: only a POST without a key of its own needs it.
    const idempotencyKey = method === 'POST' ? (opts.idempotencyKey ?? (await import('node:crypto')).randomUUID()) : undefined;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.opts.apiKey}`,
      accept: 'application/json',
      'user-agent': this.opts.userAgent ?? 'svc-cli',
      ...this.opts.headers,
    };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    // Only GETs and keyed POSTs are safe to repeat.
    const retryable = method === 'GET' || (method === 'POST' && idempotencyKey !== undefined);
    const sleep = this.opts.sleep ?? defaultSleep;
    const timing = this.opts.retryTiming ?? DEFAULT_TIMING;
    const d = dispatcherFor(this.base, this.opts.env ?? {});
    const budget = this.opts.budget?.() ?? new NetworkBudget(this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const host = this.base.host;
    const hints: HintContext = { loopback: isLoopbackUrl(this.base) };
    // Whether every try so far was refused at connect (then no request left this machine).
    let refusedEveryTry = true;

    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      const left = Math.ceil(budget.remainingMs);
      if (left <= 0) throw timeoutError(host, budget.totalMs);
      this.trace(`> ${method} ${url}${attempt > 1 ? ` (try ${attempt}/${MAX_TRIES})` : ''}`);
      this.trace(`> authorization: Bearer ${maskSecret(this.opts.apiKey)}`);
      if (idempotencyKey) this.trace(`> idempotency-key: ${idempotencyKey}`);
      let status: number;
      let text: string;
      let resHeaders: Record<string, string | string[] | undefined>;
      // A timer cleared when the try ends (AbortSignal.timeout() would keep each one alive for
      // its whole span: thousands at once in a batch).
      const deadlineCtl = new AbortController();
      const timer = setTimeout(() => deadlineCtl.abort(new DOMException('the time limit passed', 'TimeoutError')), left);
      timer.unref();
      const deadline = deadlineCtl.signal;
      const stop = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
      try {
        // Raced against the deadline too: a proxy that never answers its CONNECT holds undici's
        // own abort, and the command must end on time regardless.
        const answer = await budget.measure(() => unlessAborted(stop, (async () => {
          const res = await httpRequest(d, url, { method, headers, ...(payload !== undefined ? { body: payload } : {}), signal: stop });
          return { status: res.statusCode, headers: res.headers, text: await readCapped(res.body, MAX_RESPONSE_BYTES) };
        })()));
        status = answer.status;
        resHeaders = answer.headers;
        text = answer.text;
      } catch (err) {
        if (err instanceof TooLarge) {
          this.trace(`< answer over ${MAX_RESPONSE_BYTES} bytes: not read`);
          throw new CliError('failure', 'response_too_large', `the answer to ${method} ${path} is larger than ${MAX_RESPONSE_BYTES / (1024 * 1024)} MB; it was not read`, {
            hint: 'a service answers this tool in kilobytes: is the base URL the service?',
          });
        }
        const ms = Math.round(performance.now() - started);
        if (opts.signal?.aborted && !deadline.aborted) {
          this.trace(`< interrupted after ${formatDuration(ms)}`);
          throw new CliError('interrupted', 'interrupted', 'interrupted');
        }
        const failure = describeNetFailure(err);
        if (!failure.refused || deadline.aborted) refusedEveryTry = false;
        const netErr = deadline.aborted ? timeoutError(host, budget.totalMs) : toNetworkError(failure, host, hints, refusedEveryTry);
        this.trace(`< network error after ${formatDuration(ms)}: ${netErr.message}${failure.code && !netErr.message.includes(failure.code) ? ` (${failure.code})` : ''}`);
        if (retryable && attempt < MAX_TRIES && !deadline.aborted) {
          await pause(budget, sleep, backoffDelay(attempt + 1, timing));
          continue;
        }
        throw netErr;
      } finally {
        clearTimeout(timer);
      }
      refusedEveryTry = false;
      const ms = Math.round(performance.now() - started);
      const requestId = header(resHeaders, 'x-request-id');
      this.trace(`< ${status} ${method} ${url} (${formatDuration(ms)})${requestId ? ` request_id=${requestId}` : ''}`);
      if (status >= 200 && status < 300) {
        const date = header(resHeaders, 'date');
        const serverTime = date ? new Date(date) : undefined;
        if (serverTime && !Number.isNaN(serverTime.getTime())) this.opts.onServerTime?.(serverTime);
        return { status, data: this.parse(text, opts.schema, method, path), requestId, serverTime };
      }
      if (retryable && isRetryableStatus(status) && attempt < MAX_TRIES) {
        const delay = backoffDelay(attempt + 1, timing, header(resHeaders, 'retry-after'));
        // A pause that would outlast the budget is not worth starting: report the answer now.
        if (delay < budget.remainingMs) {
          await pause(budget, sleep, delay);
          continue;
        }
      }
      if (status >= 300 && status < 400) {
        // Never followed: the key would go to wherever the Location points.
        const location = header(resHeaders, 'location');
        throw new ApiError(status, 'redirect_not_followed', `the service answered ${status}${location ? `, a redirect to ${location}` : ''}; redirects are not followed, so nothing was sent there`, requestId, {},
          'set the base URL (--base-url or the profile) to the address the service really answers on');
      }
      throw apiErrorFromBody(status, text, requestId, hints);
    }
  }

  private parse<T>(text: string, schema: $ZodType<T> | undefined, method: string, path: string): T {
    // Everything after the parse (null-stripping, validation, printing) recurses: refuse depth first.
    if (nestingDepth(text) > MAX_NESTING) {
      throw new CliError('failure', 'invalid_response', `unexpected response from ${method} ${path}: nested deeper than ${MAX_NESTING} levels`);
    }
    let json: unknown;
    try {
      json = text.length ? JSON.parse(text) : {};
    } catch {
      throw new CliError('failure', 'invalid_response', `unexpected response from ${method} ${path}: not JSON`);
    }
    if (!schema) return json as T;
    // A field set to null is a field not set: our schemas describe present fields only.
    const parsed = safeParse(schema, withoutNulls(json));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'body';
      throw new CliError('failure', 'invalid_response', `unexpected response from ${method} ${path}: ${where}: ${issue?.message ?? 'invalid'}`);
    }
    return parsed.data;
  }

  private trace(line: string): void {
    this.opts.trace?.(line);
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function timeoutError(host: string, totalMs: number): NetworkError {
  return new NetworkError('timeout', `no answer from ${host} within the --timeout of ${formatDuration(totalMs)} (retries included)`, 'raise it with --timeout (e.g. --timeout 2m), or check the service');
}

/** A pause between tries, counted against the budget (and never longer than what is left). */
async function pause(budget: NetworkBudget, sleep: (ms: number) => Promise<void>, ms: number): Promise<void> {
  const wait = Math.min(ms, budget.remainingMs);
  await sleep(wait);
  budget.spend(wait);
}

/** A failed connection as the user reads it: what happened in a few words, and where to look next. */
function toNetworkError(failure: ReturnType<typeof describeNetFailure>, host: string, hints: HintContext, nothingSent: boolean): NetworkError {
  if (failure.refused) {
    return new NetworkError('network_error', `could not connect to ${host} (connection refused)`, connectionHint(hints), undefined, { nothingSent });
  }
  if (failure.timedOut) {
    return new NetworkError('timeout', `${host} did not answer in time${failure.code ? ` (${failure.code})` : ''}`, 'check the service, or a proxy between');
  }
  return new NetworkError('network_error', `could not reach ${host}: ${failure.words}`, connectionHint(hints));
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

/** How deep an answer may nest (the service's are a few levels deep). */
const MAX_NESTING = 256;

/** The deepest nesting of arrays and objects in a JSON text (strings skipped), in one pass. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}
