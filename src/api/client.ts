// The HTTP client every command uses. It builds a request (auth, JSON, an idempotency key for a
// POST), sends it one try at a time (attempt.ts) for as long as the retry policy says (retry.ts),
// all within the command's --timeout, and turns the last outcome into data or a typed error
// (answer.ts, failures.ts). With --verbose it traces each try, the key masked.
import type { $ZodType } from 'zod/v4/core';
import { maskSecret } from '../config/mask.js';
import { environmentOfKey } from '../domain/api-key.js';
import { formatDuration } from '../domain/duration.js';
import { attempt, header, type Method, type Outcome } from './attempt.js';
import { dataOf, errorOf } from './answer.js';
import { NetworkBudget } from './budget.js';
import { realClock } from '../clock.js';
import { dispatcherFor } from './dispatcher.js';
import { interruptedError, networkError, timeoutError, tooLargeError } from './failures.js';
import { isLoopbackUrl, type HintContext, type ProfileHints } from './hints.js';
import { DEFAULT_TIMEOUT_MS, MAX_RESPONSE_BYTES } from './limits.js';
import { DEFAULT_TIMING, isRepeatable, MAX_TRIES, pause, RetryPolicy, type RetryTiming } from './retry.js';
import { DeliveryTracker, type Delivery } from './delivery.js';
import { CliError } from '../errors.js';
import { checkBaseUrl, joinUrl } from './url.js';

export type { Method } from './attempt.js';
export type Query = Record<string, string | number | undefined>;
export { MAX_RESPONSE_BYTES } from './limits.js';

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
  /** The command's clock (reads a Retry-After given as a date); default: the machine's. */
  now?: () => number;
  /** Told the server's clock from each successful answer's Date header. */
  onServerTime?: (serverTime: Date) => void;
  /** Extra headers (the sandbox control token, for instance). */
  headers?: Record<string, string>;
  /** Where proxy settings come from (HTTPS_PROXY, NO_PROXY); default: none, direct connections. */
  env?: NodeJS.ProcessEnv;
  /** Certificate authorities (PEM) to trust instead of Node's: main()'s caller only (dispatcher.ts). */
  ca?: string;
  /** The key and base URL are a profile's own: what its hints may name (hints.ts). */
  profileHints?: ProfileHints;
}

export interface RequestOptions<T> {
  query?: Query;
  body?: unknown;
  /** POSTs get a generated key when none is given. */
  idempotencyKey?: string;
  schema?: $ZodType<T>;
  /** Aborting it (Ctrl-C during a wait) ends the request at once with an `interrupted` error. */
  signal?: AbortSignal;
  /**
   * A try of this request under its idempotency key may have reached the service before (an
   * earlier run's answer was lost): a refusal now leaves the outcome unknown (api/delivery.ts).
   */
  reachedBefore?: boolean;
  /**
   * This request's own network time (a wait that bounds each read by what is left of it), instead
   * of the command's --timeout budget, which other requests of the process share and keep whole.
   */
  budget?: NetworkBudget;
}

export interface ApiResponse<T> {
  status: number;
  data: T;
  requestId?: string;
  /** The server's clock from its Date header (the sandbox's clock may run ahead of ours). */
  serverTime?: Date;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class ApiClient {
  private readonly base: URL;
  private readonly hints: HintContext;
  constructor(private readonly opts: ClientOptions) {
    // Whoever made this client, the key's own rule holds: a live key never goes over plain http.
    this.base = checkBaseUrl(opts.baseUrl, environmentOfKey(opts.apiKey));
    this.hints = { loopback: isLoopbackUrl(this.base), ...(opts.profileHints ? { profile: opts.profileHints } : {}) };
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
    // node:crypto costs ~5 ms to load: only a POST without a key of its own needs it (through
    // getBuiltinModule: an import would build its module facade, which loads WebCrypto too).
    const idempotencyKey = method === 'POST' ? (opts.idempotencyKey ?? process.getBuiltinModule('node:crypto').randomUUID()) : undefined;
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const headers = this.headers(idempotencyKey, body !== undefined);
    const budget = opts.budget ?? this.opts.budget?.() ?? new NetworkBudget(this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const policy = new RetryPolicy(isRepeatable(method, idempotencyKey), this.opts.retryTiming ?? DEFAULT_TIMING, this.opts.now ?? realClock.now);
    const dispatcher = dispatcherFor(this.base, this.opts.env ?? {}, this.opts.ca);
    // What the request did at the service, over every try: every error it ends with carries it.
    const delivery = new DeliveryTracker(opts.reachedBefore);

    for (let tryNumber = 1; ; tryNumber++) {
      const left = Math.ceil(budget.remainingMs);
      if (left <= 0) throw timeoutError(this.base.host, budget.totalMs).with({ delivery: delivery.stopped() });
      this.trace(`> ${method} ${url}${tryNumber > 1 ? ` (try ${tryNumber}/${MAX_TRIES})` : ''}`);
      this.trace(`> authorization: Bearer ${maskSecret(this.opts.apiKey)}`);
      if (idempotencyKey) this.trace(`> idempotency-key: ${idempotencyKey}`);
      const outcome = await budget.measure(() => attempt({ dispatcher, url, method, headers, body, timeLimitMs: left, signal: opts.signal }));
      const state = delivery.after(outcome);
      const pauseMs = policy.pauseAfter(outcome, budget.remainingMs);
      const failure = this.traced(outcome, url, method, path, budget);
      if (pauseMs !== undefined) {
        await this.pause(budget, pauseMs, opts.signal, delivery);
        continue;
      }
      if (outcome.kind === 'answer') return this.settle(outcome, method, path, opts.schema, state, delivery);
      throw (failure as CliError).with({ delivery: state === 'accepted' ? 'unknown' : state });
    }
  }

  private headers(idempotencyKey: string | undefined, hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.opts.apiKey}`,
      accept: 'application/json',
      'user-agent': this.opts.userAgent ?? 'svc-cli',
      ...this.opts.headers,
    };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    if (hasBody) headers['content-type'] = 'application/json';
    return headers;
  }

  /** Traces how a try ended; returns the error it becomes when it brought no answer. */
  private traced(outcome: Outcome, url: string, method: string, path: string, budget: NetworkBudget): CliError | undefined {
    const after = formatDuration(outcome.ms);
    switch (outcome.kind) {
      case 'answer': {
        const requestId = header(outcome.headers, 'x-request-id');
        this.trace(`< ${outcome.status} ${method} ${url} (${after})${requestId ? ` request_id=${requestId}` : ''}`);
        return undefined;
      }
      case 'too_large':
        this.trace(`< answer over ${MAX_RESPONSE_BYTES} bytes: not read`);
        return tooLargeError(method, path);
      case 'interrupted':
        this.trace(`< interrupted after ${after}`);
        return interruptedError();
      case 'timeout': {
        const err = timeoutError(this.base.host, budget.totalMs);
        this.trace(`< network error after ${after}: ${err.message}`);
        return err;
      }
      case 'failed': {
        const { failure } = outcome;
        const err = networkError(failure, this.base.host, this.hints, this.base.href);
        this.trace(`< network error after ${after}: ${err.message}${failure.code && !err.message.includes(failure.code) ? ` (${failure.code})` : ''}`);
        return err;
      }
    }
  }

  /** The pause before the next try; Ctrl-C during it is an interruption like any other. */
  private async pause(budget: NetworkBudget, ms: number, signal: AbortSignal | undefined, delivery: DeliveryTracker): Promise<void> {
    try {
      await pause(budget, this.opts.sleep ?? defaultSleep, ms, signal);
    } catch (err) {
      throw signal?.aborted ? interruptedError().with({ delivery: delivery.stopped() }) : err;
    }
  }

  /**
   * The last answer: its data, or the error it carries (with what the request did). Every answer
   * tells the service's time, an error's too: a refusal is as good a clock as a success.
   */
  private settle<T>(answer: Extract<Outcome, { kind: 'answer' }>, method: Method, path: string, schema: $ZodType<T> | undefined, state: Delivery, delivery: DeliveryTracker): ApiResponse<T> {
    const { status, headers, text } = answer;
    const requestId = header(headers, 'x-request-id');
    const date = header(headers, 'date');
    const serverTime = date ? new Date(date) : undefined;
    const told = serverTime && !Number.isNaN(serverTime.getTime()) ? serverTime : undefined;
    if (told) this.opts.onServerTime?.(told);
    if (status < 200 || status >= 300) {
      throw errorOf(status, text, requestId, header(headers, 'location'), this.hints).with({ delivery: state === 'accepted' ? 'unknown' : state });
    }
    try {
      return { status, data: dataOf(text, schema, method, path), requestId, ...(told ? { serverTime: told } : {}) };
    } catch (err) {
      // Accepted, but what it made cannot be read: for a POST, the outcome is unknown.
      throw err instanceof CliError ? err.with({ delivery: delivery.unreadable() }) : err;
    }
  }

  private trace(line: string): void {
    this.opts.trace?.(line);
  }
}
