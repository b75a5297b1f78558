// The request pipeline: request id → route (404/405) → auth (401) → body (413) →
// idempotency (replay / 409) → handler → one JSON answer, and one log line per request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AUTH_MESSAGES, authenticate, isAdminToken } from '../auth.js';
import { newRequestId, sha256Hex } from '../ids.js';
import { IDEMPOTENCY_KEY_RE, IDEMPOTENCY_KEY_RULE } from '../../domain/idempotency.js';
import { isLoopbackHost, isLoopbackHostHeader } from '../../domain/loopback.js';
import { ApiFault } from '../faults.js';
import { aad } from '../seal-contexts.js';
import type { Account, ApiKeyRecord } from '../records.js';
import { StateLockedError } from '../store/transactions.js';
import type { World } from '../world.js';
import { parseJsonBody, type ApiContext, type Route, type Routes } from './context.js';
import { errorBody, sendJson, type Reply } from './respond.js';

export const DEFAULT_BODY_LIMIT = 64 * 1024;

export interface PipelineOptions {
  /** Gets a line per request (unless logRequests is false) and every internal error. */
  log?: (line: string) => void;
  /** false: no request line is made, only errors are logged. Default true. */
  logRequests?: boolean;
  bodyLimitBytes?: number;
  /** Sees every answer the pipeline makes, as it is sent (a test holds each against docs/openapi.yaml). */
  onAnswer?: (answer: AnswerRecord) => void;
}

/** One answer: the request's method and path (no query), the status, the body and the headers beyond the usual ones. */
export interface AnswerRecord {
  method: string;
  path: string;
  status: number;
  text: string;
  headers: Record<string, string>;
}

interface Answer {
  status: number;
  text: string;
  headers?: Record<string, string>;
}

export function createRequestListener(world: World, routes: Routes, opts: PipelineOptions = {}) {
  const limit = opts.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const log = opts.log;
  const requestLog = opts.logRequests === false ? undefined : log;

  // The Date header follows the sandbox clock, so clients see advanced time too; its text changes
  // once a second, so it is made once a second, not once per answer.
  let dateSecond = NaN;
  let dateText = '';
  const date = (): string => {
    const now = world.now();
    const second = Math.floor(now / 1000);
    if (second !== dateSecond) {
      dateSecond = second;
      dateText = new Date(now).toUTCString();
    }
    return dateText;
  };

  return (req: IncomingMessage, res: ServerResponse): void => {
    const started = requestLog ? performance.now() : 0;
    const requestId = newRequestId();
    const method = req.method ?? 'GET';
    const { path, queryText } = splitUrl(req.url ?? '/');
    // Group commit (store/transactions.ts): what an answer shows may include writes of a batch not
    // committed yet (its own, or another request's that a read sees); it leaves only once they
    // are (compute waits). If that batch fails instead, the request answers 500 (503
    // state_locked when its transaction could not begin: another program held the write lock).
    void compute(world, routes, req, method, path, queryText, requestId, limit)
      .catch((err: unknown) => {
        // Another program holds the database's write lock: nothing was done, and a retry may go through.
        if (err instanceof StateLockedError) return render(new ApiFault(503, 'state_locked', err.message, {}, { 'retry-after': '1' }), requestId);
        log?.(`error ${method} ${path} ${requestId}: ${(err as Error)?.stack ?? String(err)}`);
        return render(new ApiFault(500, 'internal_error', 'internal sandbox error'), requestId);
      })
      .then((a) => {
        if (!res.headersSent && !res.destroyed) sendJson(res, a.status, a.text, requestId, date(), a.headers);
        requestLog?.(`${method} ${path} ${a.status} ${(performance.now() - started).toFixed(1)}ms ${requestId}${a.headers?.['idempotent-replayed'] ? ' (replayed)' : ''}`);
        opts.onAnswer?.({ method, path, status: a.status, text: a.text, headers: a.headers ?? {} });
      });
  };
}

function splitUrl(url: string): { path: string; queryText: string } {
  let u = url;
  if (!u.startsWith('/')) {
    // absolute-form (through a proxy) or garbage
    try {
      const parsed = new URL(u);
      u = parsed.pathname + parsed.search;
    } catch {
      return { path: '/', queryText: '' };
    }
  }
  const q = u.indexOf('?');
  return q < 0 ? { path: u, queryText: '' } : { path: u.slice(0, q), queryText: u.slice(q + 1) };
}


/**
 * The sandbox answers only requests addressed to it on loopback: a page that rebinds its DNS name
 * to 127.0.0.1 sends its own Host, and a browser sends a foreign Origin; both are refused.
 */
function checkAddressedToUs(req: IncomingMessage): void {
  const host = header(req, 'host');
  if (!host) throw new ApiFault(400, 'invalid_request', 'the Host header is required');
  if (!isLoopbackHostHeader(host)) {
    throw new ApiFault(421, 'invalid_host', 'the sandbox answers only requests addressed to a loopback name (localhost, 127.0.0.1, [::1])');
  }
  const origin = header(req, 'origin');
  if (origin !== undefined && origin !== 'null') {
    let ok = false;
    try {
      const u = new URL(origin);
      ok = (u.protocol === 'http:' || u.protocol === 'https:') && isLoopbackHost(u.hostname);
    } catch {
      ok = false;
    }
    if (!ok) throw new ApiFault(403, 'forbidden_origin', 'requests from a web page of another origin are refused');
  } else if (origin === 'null') {
    throw new ApiFault(403, 'forbidden_origin', 'requests from a web page of another origin are refused');
  }
}

function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function render(fault: ApiFault, requestId: string): Answer {
  return {
    status: fault.status,
    text: JSON.stringify(errorBody(fault.code, fault.message, requestId, fault.extra)),
    headers: fault.headers,
  };
}

function renderReply(reply: Reply): Answer {
  return { status: reply.status, text: JSON.stringify(reply.body), ...(reply.headers ? { headers: reply.headers } : {}) };
}

async function compute(
  world: World,
  routes: Routes,
  req: IncomingMessage,
  method: string,
  path: string,
  queryText: string,
  requestId: string,
  limit: number,
): Promise<Answer> {
  try {
    checkAddressedToUs(req);
    const found = routes.router.match(method, path);
    if (!found) throw new ApiFault(404, 'not_found', `no such endpoint: ${method} ${path}`);
    if ('allowed' in found) {
      throw new ApiFault(405, 'method_not_allowed', `${method} is not allowed on ${path} (allowed: ${found.allowed.join(', ')})`, {}, { allow: found.allowed.join(', ') });
    }
    const { route, params } = found;

    let account: Account | undefined;
    let key: ApiKeyRecord | undefined;
    if (route.auth === 'api') {
      const auth = authenticate(world.store, header(req, 'authorization'), world.now());
      if (!auth.ok) throw new ApiFault(401, 'unauthorized', AUTH_MESSAGES[auth.reason]);
      account = auth.account;
      key = auth.key;
    } else if (route.auth === 'admin') {
      if (!isAdminToken(world.adminToken, adminTokenOf(req))) {
        throw new ApiFault(401, 'unauthorized', 'missing or wrong sandbox admin token: send it in X-Sandbox-Admin-Token (svc stores it in the "sandbox" profile at start)');
      }
    }

    // A GET may carry a body (the balances endpoint's decryption proof); read one only if sent.
    const sendsBody = (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;
    const rawBody = method === 'HEAD' || (method === 'GET' && !sendsBody) ? EMPTY : await readBody(req, limit);
    if (rawBody.length > 0 && !isJsonContentType(header(req, 'content-type'))) {
      // A cross-site form or text/plain POST needs no preflight: it must not be read as JSON.
      throw new ApiFault(415, 'unsupported_media_type', 'a request body must be JSON, sent with Content-Type: application/json');
    }
    let parsed: { value: unknown } | undefined;
    let query: URLSearchParams | undefined;
    const ctx = {
      world,
      requestId,
      method,
      path,
      params,
      // Parsed when a handler first reads it (a POST's query is empty).
      get query() {
        return (query ??= new URLSearchParams(queryText));
      },
      headers: req.headers,
      rawBody,
      json: () => (parsed ??= { value: parseJsonBody(rawBody) }).value,
      account: account!,
      key: key!,
    } satisfies ApiContext;

    const idemKey = route.idempotent ? header(req, 'idempotency-key') : undefined;
    // A read changes nothing, and a handler that awaits commits each of its steps itself; either
    // may show writes of the open batch, so it waits for that batch's commit.
    if (method === 'GET' || method === 'HEAD' || route.async) return await afterCommit(world, renderReply(await route.handler(ctx)));
    // One transaction per request, or rather one batch of requests (group commit,
    // store/transactions.ts): its effects and its idempotency record commit together, before the
    // answer is written (an ApiFault is an answer: what it leaves also commits; anything else
    // fails the batch). txGrouped resolves once that batch has committed, and every batch before
    // it committed before it began: nothing more to wait for.
    return await world.store.txGrouped(() => {
      try {
        if (idemKey !== undefined) return runIdempotent(world, route, ctx, idemKey, idempotencyScope(route, account, key));
        return runHandler(route, ctx);
      } catch (err) {
        if (err instanceof ApiFault) return render(err, requestId);
        throw err;
      }
    });
  } catch (err) {
    if (err instanceof ApiFault) return await afterCommit(world, render(err, requestId));
    throw err;
  }
}

/** `a` once every write made so far has committed (rejects if its batch rolls back instead). */
async function afterCommit(world: World, a: Answer): Promise<Answer> {
  await world.store.committed();
  return a;
}

/** Whose Idempotency-Keys a request's is one of: its account's, its API key's (Route.perKey), or the admin's. */
function idempotencyScope(route: Route, account: Account | undefined, key: ApiKeyRecord | undefined): string {
  if (!account) return 'admin';
  return route.perKey && key ? `key:${key.key_id}` : `account:${account.account_id}`;
}

/**
 * Same key + same request → the first answer again, whole (status and body, `Idempotent-Replayed:
 * true`); same key + another request → 409 idempotency_key_reused. Only a hash of the request
 * is kept. Answers of 500 and above are not remembered, so a retry runs again.
 * A first answer with a field shown once (a webhook's signing secret, an API key, a decryption
 * key) is kept sealed under the sandbox key, bound to its scope and key, and opened for a replay:
 * a client that lost the first answer learns the secret from the retry, and the database never
 * holds it in the clear (`body` is kept without it). docs/sandbox.md, "Idempotency".
 */
function runIdempotent(world: World, route: Route, ctx: ApiContext, key: string, scope: string): Answer {
  if (!IDEMPOTENCY_KEY_RE.test(key)) throw new ApiFault(400, 'invalid_request', `Idempotency-Key ${IDEMPOTENCY_KEY_RULE}`);
  const hash = requestHash(ctx);
  const now = world.now();
  const prior = world.store.idempotencyRecord(scope, key, now);
  if (prior) {
    if (prior.request_hash !== hash) {
      throw new ApiFault(409, 'idempotency_key_reused', 'this Idempotency-Key was already used with a different request; use a new key for a new request');
    }
    const first = world.store.idempotencyAnswer(prior);
    const text = first.answer_sealed === undefined ? first.body : world.sealer.openText(first.answer_sealed, aad.idempotentAnswer(scope, key));
    return { status: first.status, text, headers: { 'idempotent-replayed': 'true' } };
  }
  const result = runHandler(route, ctx);
  if (result.status < 500) {
    const secret = result.withoutSecrets !== undefined;
    world.store.saveIdempotency({
      scope, key, request_hash: hash, status: result.status,
      body: result.withoutSecrets ?? result.text,
      ...(secret ? { answer_sealed: world.sealer.sealText(result.text, aad.idempotentAnswer(scope, key)) } : {}),
      created_at: now,
    });
  }
  return result;
}

/** Runs a synchronous handler; an ApiFault becomes its error answer. `withoutSecrets`: the answer without its fields shown once. */
function runHandler(route: Route, ctx: ApiContext): Answer & { withoutSecrets?: string } {
  try {
    const reply = route.handler(ctx);
    if (reply instanceof Promise) throw new Error(`${ctx.method} ${ctx.path}: a handler that awaits must be registered as async`);
    const answer = renderReply(reply);
    if (!reply.shownOnce?.length) return answer;
    const rest = { ...(reply.body as Record<string, unknown>) };
    for (const name of reply.shownOnce) delete rest[name];
    return { ...answer, withoutSecrets: JSON.stringify(rest) };
  } catch (err) {
    if (!(err instanceof ApiFault)) throw err;
    return render(err, ctx.requestId);
  }
}

/**
 * Hash of method, path and the body (canonical JSON when it parses, so key order does not
 * matter). The body is parsed once: the handler reads the same parsed value (ctx.json()).
 */
function requestHash(ctx: ApiContext): string {
  const raw = ctx.rawBody;
  let canonical: string;
  try {
    canonical = raw.length ? `json:${stableStringify(ctx.json())}` : 'empty';
  } catch {
    canonical = `raw:${raw.toString('base64')}`;
  }
  return sha256Hex(`${ctx.method} ${ctx.path}\n${canonical}`);
}

function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify((v as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const EMPTY = Buffer.alloc(0);

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function adminTokenOf(req: IncomingMessage): string | undefined {
  const explicit = header(req, 'x-sandbox-admin-token');
  if (explicit) return explicit.trim();
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header(req, 'authorization') ?? '');
  return m?.[1];
}

/** Reads the body up to `limit` bytes; beyond that, 413 and the connection is closed. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () =>
    new ApiFault(413, 'payload_too_large', `request body is larger than ${limit} bytes`, {}, { connection: 'close' });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on('error', (err) => {
      if (done) return;
      done = true;
      reject(err);
    });
    req.on('close', () => {
      if (done) return;
      done = true;
      reject(new ApiFault(499, 'client_closed_request', 'the client closed the connection before sending the whole body'));
    });
  });
}
