import { existsSync, readFileSync } from 'node:fs';
import Database from 'libsql';
// Test helpers: an in-process sandbox on an ephemeral port, and a small HTTP client that checks
// every answer against the shared response schemas (src/api/schemas.ts, control-schemas.ts).
import { connect } from 'node:net';
import { Agent as HttpAgent, request as undiciRequest } from 'undici';
import { expect } from 'vitest';
import * as z from 'zod/mini';
import * as C from '../../src/api/control-schemas.js';
import * as S from '../../src/api/schemas.js';
import { parseAmount } from '../../src/domain/amount.js';
import { openSandbox, type SandboxInternals } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/types.js';

export interface Res {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
  headers: Headers;
}

export interface ReqOptions {
  key?: string;
  body?: unknown;
  /** Sent as is (not JSON-encoded). */
  raw?: string;
  headers?: Record<string, string>;
  /** Skip the answer check (for a test that expects something that is not a sandbox answer). */
  unchecked?: boolean;
}

/**
 * The client of request(): undici's request() on a keep-alive pool, not fetch(). The same bytes
 * reach the sandbox (URL parsed the same way, the same connection reuse), minus fetch's own
 * headers (accept, sec-fetch-mode, user-agent), which the sandbox never reads; a third of the
 * client's CPU per request (WHATWG streams, an AbortSignal and Headers per fetch), and suites such
 * as property.test.ts make some 70,000 requests.
 */
const client = new HttpAgent({ keepAliveTimeout: 4_000 });

export async function request(url: string, method: string, path: string, opts: ReqOptions = {}): Promise<Res> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  // As fetch() would refuse it (a test that sends one means something else).
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) throw new TypeError(`a ${method} request cannot have a body`);
  const res = await undiciRequest(url + path, { method, headers, body, dispatcher: client });
  const text = await res.body.text();
  if (!opts.unchecked) checkAnswer(method, path, res.statusCode, text);
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const answerHeaders = new Headers();
  for (const [name, value] of Object.entries(res.headers)) for (const v of Array.isArray(value) ? value : [value ?? '']) answerHeaders.append(name, v);
  return { status: res.statusCode, body: parsed, text, headers: answerHeaders };
}

/**
 * An error answer: its status and code, and (every sandbox error carries one) the request id,
 * the same in the body and the X-Request-Id header.
 */
export function expectApiError(res: Res, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }, res.text).toEqual({ status, code });
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
}

// ---- the answer check -----------------------------------------------------------------------------

// What the sandbox always sends on top of the shared schemas (sandbox extensions, exact values).
// (zod/mini, like the schemas: its functions instead of the classic build's methods.)
const Transfer = z.required(S.TransferSchema, { from: true, tx_hash: true, asset: true }).check(z.superRefine((t, ctx) => {
  if ((t.status === 'confirmed') !== (t.confirmed_at !== undefined)) ctx.addIssue({ code: 'custom', message: 'confirmed_at must be present exactly when status is confirmed' });
}));
// The quorum (DESIGN.md "Quorum") is on every view of a held transaction.
const QUORUM = { approvals_required: true, approvals: true } as const;
const Held = z.extend(z.required(S.HeldTransactionSchema, { agent: true, to: true, asset: true, requested_at: true, ...QUORUM }), { status: z.literal('pending_approval') });
const Agent = z.extend(z.required(S.AgentSchema, { type: true, created_at: true }), { status: z.enum(['active', 'suspended']) });
// A held transaction as a resource: decided_at and decided_by exactly when approved or rejected,
// transfer_id exactly when approved, a reason only on a rejection.
const heldInvariants = z.superRefine((x: { status: string; transfer_id?: string | undefined; decided_at?: string | undefined; decided_by?: unknown; reason?: string | undefined; approvals_required?: number | undefined; approvals?: unknown[] | undefined }, ctx) => {
  if ((x.status === 'approved') !== (x.transfer_id !== undefined)) ctx.addIssue({ code: 'custom', message: 'transfer_id must be present exactly when approved' });
  const decided = x.status === 'approved' || x.status === 'rejected';
  if (decided !== (x.decided_at !== undefined)) ctx.addIssue({ code: 'custom', message: 'decided_at must be present exactly when approved or rejected' });
  if (decided !== (x.decided_by !== undefined)) ctx.addIssue({ code: 'custom', message: 'decided_by must be present exactly when approved or rejected' });
  if (x.reason !== undefined && x.status !== 'rejected') ctx.addIssue({ code: 'custom', message: 'reason only on a rejection' });
  // Approvals never exceed the quorum; an approved one has all of it, a pending one less.
  const n = x.approvals?.length ?? 0;
  const required = x.approvals_required ?? 1;
  if (x.status === 'approved' ? n !== required : n >= required) ctx.addIssue({ code: 'custom', message: `${n} approvals of ${required} cannot be ${x.status}` });
});
const HeldResource = z.extend(z.required(S.HeldResourceSchema, { asset: true, rule: true, ...QUORUM }), { status: z.enum(S.HELD_STATUSES) }).check(heldInvariants);
const RejectState = z.extend(z.required(S.HeldResourceSchema, { asset: true, rule: true, ...QUORUM }), { status: z.literal('rejected') }).check(heldInvariants);
/** Approve's answer: approved at the quorum, or still pending with this approval recorded. */
const ApprovalState = z.extend(z.required(S.HeldResourceSchema, { asset: true, rule: true, ...QUORUM }), { status: z.enum(['approved', 'pending_approval']) }).check(heldInvariants);
const Delivery = z.required(S.DeliverySchema, { webhook_id: true, replay: true }).check(z.superRefine((d, ctx) => {
  if ((d.state === 'retrying') !== (d.next_retry_at !== undefined)) ctx.addIssue({ code: 'custom', message: 'next_retry_at must be present exactly when retrying' });
  if ((d.state === 'succeeded') === (d.error !== undefined)) ctx.addIssue({ code: 'custom', message: 'error must be present exactly when the attempt failed' });
  if (d.status_code === undefined && d.error === undefined) ctx.addIssue({ code: 'custom', message: 'an attempt without status_code must say its error' });
}));
const Balances = z.union([
  z.looseObject({ balances: z.array(z.required(S.BalanceEntrySchema, { nonzero: true })) }),
  z.looseObject({ balances: z.array(z.required(S.BalanceEntrySchema, { amount: true })) }),
]);

interface AnswerRule {
  method: string;
  /** Path with `:param` segments, as registered by the sandbox. */
  path: string;
  status: number;
  schema: z.ZodMiniType;
}

/** Every 2xx answer of the sandbox: method + route + status → the schema it must satisfy. */
export const ANSWER_RULES: readonly AnswerRule[] = [
  { method: 'GET', path: '/v1/accounts/me', status: 200, schema: z.required(S.AccountSchema, { created_at: true, viewing_public_key: true }) },
  { method: 'GET', path: '/v1/accounts/me/balances', status: 200, schema: Balances },
  { method: 'POST', path: '/v1/transfers', status: 201, schema: Transfer },
  { method: 'POST', path: '/v1/transfers', status: 202, schema: Held },
  { method: 'GET', path: '/v1/transfers', status: 200, schema: z.extend(S.TransferPageSchema, { transfers: z.array(Transfer) }) },
  { method: 'GET', path: '/v1/transfers/:id', status: 200, schema: Transfer },
  { method: 'POST', path: '/v1/accounts/me/agents', status: 201, schema: Agent },
  { method: 'GET', path: '/v1/accounts/me/agents', status: 200, schema: z.extend(S.AgentListSchema, { agents: z.array(Agent) }) },
  { method: 'GET', path: '/v1/agents/transactions/pending', status: 200, schema: z.extend(S.PendingListSchema, { pending: z.array(z.required(S.PendingTransactionSchema, { asset: true, ...QUORUM })) }) },
  { method: 'GET', path: '/v1/agents/transactions', status: 200, schema: z.extend(S.HeldPageSchema, { transactions: z.array(HeldResource) }) },
  { method: 'GET', path: '/v1/agents/transactions/:transaction_id', status: 200, schema: HeldResource },
  { method: 'POST', path: '/v1/agents/transactions/:transaction_id/approve', status: 200, schema: ApprovalState },
  { method: 'POST', path: '/v1/agents/transactions/:transaction_id/reject', status: 200, schema: RejectState },
  { method: 'GET', path: '/v1/agents/:account_id/spend-policy', status: 200, schema: S.SpendPolicySchema },
  { method: 'GET', path: '/v1/agents/:account_id/balances', status: 200, schema: z.looseObject({ balances: z.array(z.required(S.BalanceEntrySchema, { nonzero: true })) }) },
  { method: 'GET', path: '/v1/agents/:account_id/transfers', status: 200, schema: z.extend(S.TransferPageSchema, { transfers: z.array(Transfer) }) },
  { method: 'PATCH', path: '/v1/agents/:account_id/spend-policy', status: 200, schema: S.SpendPolicySchema },
  { method: 'POST', path: '/v1/agents/:account_id/suspend', status: 200, schema: Agent },
  { method: 'POST', path: '/v1/agents/:account_id/resume', status: 200, schema: Agent },
  { method: 'POST', path: '/v1/webhooks', status: 201, schema: S.WebhookSchema },
  { method: 'POST', path: '/v1/webhooks', status: 200, schema: S.WebhookSchema }, // a disabled one created again
  { method: 'GET', path: '/v1/webhooks', status: 200, schema: S.WebhookListSchema },
  { method: 'GET', path: '/v1/webhooks/:id', status: 200, schema: S.WebhookSchema },
  { method: 'DELETE', path: '/v1/webhooks/:id', status: 200, schema: S.WebhookDeletedSchema },
  { method: 'GET', path: '/v1/webhooks/:id/deliveries', status: 200, schema: z.extend(S.DeliveryListSchema, { deliveries: z.array(Delivery) }) },
  { method: 'POST', path: '/v1/webhooks/:id/replay/:event_id', status: 202, schema: S.QueuedDeliverySchema },
  { method: 'GET', path: '/_sandbox/health', status: 200, schema: C.HealthSchema },
  { method: 'POST', path: '/_sandbox/reset', status: 200, schema: C.ResetSchema },
  { method: 'POST', path: '/_sandbox/fund', status: 200, schema: C.FundSchema },
  { method: 'POST', path: '/_sandbox/keys', status: 201, schema: C.KeyCreatedSchema },
  { method: 'GET', path: '/_sandbox/keys', status: 200, schema: C.KeyListSchema },
  { method: 'POST', path: '/_sandbox/keys/:key_id/revoke', status: 200, schema: C.ApiKeySchema },
  { method: 'GET', path: '/_sandbox/clock', status: 200, schema: C.ClockSchema },
  { method: 'GET', path: '/_sandbox/export', status: 200, schema: C.ExportSchema },
  { method: 'POST', path: '/_sandbox/clock/advance', status: 200, schema: C.ClockSchema },
  { method: 'POST', path: '/_sandbox/trigger', status: 202, schema: C.TriggerSchema },
];

export class AnswerShapeError extends Error {
  override name = 'AnswerShapeError';
}

function routeMatches(pattern: string, path: string): boolean {
  const p = pattern.split('/');
  const a = (path.length > 1 ? path.replace(/\/+$/, '') || '/' : path).split('/');
  return p.length === a.length && p.every((seg, i) => (seg.startsWith(':') ? a[i] !== '' : seg === a[i]));
}

/** JSON paths of every null in a document. */
export function nullPaths(value: unknown, at = '$'): string[] {
  if (value === null) return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullPaths(v, `${at}[${i}]`));
  if (typeof value === 'object') return Object.entries(value as object).flatMap(([k, v]) => nullPaths(v, `${at}.${k}`));
  return [];
}

/**
 * Keys present in `value` that `schema` does not declare (its objects are loose, so parsing alone
 * lets them through). Unions follow the first option that parses.
 */
export function undeclaredKeys(schema: z.ZodMiniType, value: unknown, at = '$'): string[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const def = (schema as any)._zod.def;
  switch (def.type) {
    case 'object': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
      const shape = def.shape as Record<string, z.ZodMiniType>;
      return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
        shape[k] ? undeclaredKeys(shape[k]!, v, `${at}.${k}`) : [`${at}.${k}`],
      );
    }
    case 'optional':
    case 'nonoptional':
    case 'nullable':
    case 'default':
    case 'readonly':
      return undeclaredKeys(def.innerType, value, at);
    case 'pipe':
      return undeclaredKeys(def.in, value, at);
    case 'array':
      return Array.isArray(value) ? value.flatMap((v, i) => undeclaredKeys(def.element, v, `${at}[${i}]`)) : [];
    case 'union': {
      const option = (def.options as z.ZodMiniType[]).find((o) => o.safeParse(value).success);
      return option ? undeclaredKeys(option, value, at) : [];
    }
    default:
      return [];
  }
}

/**
 * Checks one sandbox answer: JSON, no null anywhere, an error status against the error body
 * schema, a 2xx against the rule for its method + route + status, and no key the schema does
 * not declare. Throws AnswerShapeError saying what is wrong.
 */
export function checkAnswer(method: string, pathWithQuery: string, status: number, text: string): void {
  const path = pathWithQuery.split('?')[0]!;
  const where = `${method} ${path} → ${status}`;
  const fail = (why: string): never => {
    throw new AnswerShapeError(`sandbox answer ${where} ${why}\n  body: ${text.length > 2000 ? `${text.slice(0, 2000)}…` : text}`);
  };
  if (method === 'HEAD') return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return fail('is not JSON');
  }
  const nulls = nullPaths(body);
  if (nulls.length) fail(`has null at ${nulls.join(', ')} (an unset field must be omitted)`);
  let schema: z.ZodMiniType;
  if (status >= 400) {
    schema = S.ErrorBodySchema;
  } else {
    const rule = ANSWER_RULES.find((r) => r.method === method && r.status === status && routeMatches(r.path, path));
    if (!rule) return fail('has no answer schema in ANSWER_RULES (test/sandbox/helpers.ts)');
    schema = rule.schema;
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) fail(`does not match its schema:\n${z.prettifyError(parsed.error)}`);
  const extra = undeclaredKeys(schema, body);
  if (extra.length) fail(`has fields its schema does not declare: ${extra.join(', ')}`);
}

// ---- a sandbox ------------------------------------------------------------------------------------

export const units = (amount: string, asset = 'USDG'): bigint => {
  const r = parseAmount(amount, asset);
  if (!r.ok) throw new Error(r.rule);
  return r.units;
};

/**
 * An in-process sandbox whose real-time source is frozen (unless `realTime`), so sandbox time
 * moves only through advance(): settlement boundaries are exact.
 */
export async function startSandbox(opts: SandboxOptions = {}, { realTime = false, internals = {} as SandboxInternals } = {}) {
  const logs: string[] = [];
  const frozen = Date.now();
  const { handle, world } = await openSandbox(
    { port: 0, ephemeral: true, blockTimeMs: 1500, log: (l) => logs.push(l), ...opts },
    { ...(realTime ? {} : { realNow: () => frozen }), ...internals },
  );
  const keys = new Map(handle.seeded.map((s) => [s.handle, s.apiKey!]));
  const keyOf = (h: string) => {
    const k = keys.get(h);
    if (!k) throw new Error(`no key for ${h}`);
    return k;
  };
  const call = (method: string, path: string, o?: ReqOptions) => request(handle.url, method, path, o);
  const as = (h: string) => ({
    get: (path: string, o: ReqOptions = {}) => call('GET', path, { ...o, key: keyOf(h) }),
    post: (path: string, body?: unknown, o: ReqOptions = {}) => call('POST', path, { ...o, body, key: keyOf(h) }),
    send: (body: Record<string, unknown>, o: ReqOptions = {}) => call('POST', '/v1/transfers', { ...o, body, key: keyOf(h) }),
  });
  const admin = (method: string, path: string, body?: unknown, o: ReqOptions = {}) =>
    call(method, path, { ...o, body, headers: { 'x-sandbox-admin-token': handle.adminToken, ...o.headers } });
  const accountId = (h: string) => world.store.accountByHandle(h)!.account_id;
  const balance = (h: string, asset = 'USDG') => world.store.balance(accountId(h), asset);
  /** After a POST /_sandbox/reset through the API: use the new seeded keys (its answer's `seeded`). */
  const adopt = (seeded: ReadonlyArray<{ handle: string; api_key?: string }>) => {
    for (const s of seeded) if (s.api_key) keys.set(s.handle, s.api_key);
  };
  return { sandbox: handle, world, logs, keyOf, call, as, admin, balance, accountId, adopt, close: () => handle.close() };
}
export type TestSandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface TestAgent {
  account_id: string;
  handle: string;
  key: string;
  /** The agent's own decryption key (shown once by the create answer). */
  decryptionKey?: string;
}

/** Creates an agent under `owner` (default @alice), gives it an API key and, optionally, funds. */
export async function makeAgent(t: TestSandbox, policy: Record<string, unknown>, o: { owner?: string; name?: string; fund?: string } = {}): Promise<TestAgent> {
  const res = await t.as(o.owner ?? '@alice').post('/v1/accounts/me/agents', { name: o.name ?? 'bot', spend_policy: policy });
  if (res.status !== 201) throw new Error(`agent create: ${res.status} ${res.text}`);
  const key = await t.admin('POST', '/_sandbox/keys', { account: res.body.handle, name: 'agent' });
  if (key.status !== 201) throw new Error(`key create: ${key.status} ${key.text}`);
  if (o.fund) {
    const funded = await t.admin('POST', '/_sandbox/fund', { handle: res.body.handle, amount: o.fund });
    if (funded.status !== 200) throw new Error(`fund: ${funded.status} ${funded.text}`);
  }
  return {
    account_id: res.body.account_id, handle: res.body.handle, key: key.body.key,
    ...(typeof res.body.decryption_key === 'string' ? { decryptionKey: res.body.decryption_key } : {}),
  };
}

// ---- raw HTTP: exactly these bytes on the wire ----------------------------------------------------

export interface RawAnswer {
  /** 0 when the connection ended without a (final) answer. */
  status: number;
  /** Lower-cased names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** Interim (1xx) statuses seen before the final answer. */
  interim: number[];
  /** The connection stayed silent for `timeoutMs`. */
  timedOut: boolean;
}

export interface WireRequest {
  method: string;
  /** The request-target exactly as sent (path and query, still percent-encoded). */
  target: string;
  /** Sent in this order, repeated names included; a Buffer value goes out byte for byte. */
  headers?: ReadonlyArray<readonly [string, string | Buffer]>;
  body?: Buffer;
  /** Content-Length: `auto` (when there is a body) or `none`; Transfer-Encoding chunked sends the body in chunks. */
  framing?: 'auto' | 'none' | 'chunked';
  /** Add `Host` and `Connection: close` (default true). */
  defaults?: boolean;
}

/** The bytes of one HTTP/1.1 request. */
export function wireBytes(r: WireRequest): Buffer {
  const lines: Buffer[] = [Buffer.from(`${r.method} ${r.target} HTTP/1.1\r\n`, 'latin1')];
  const add = (name: string, value: string | Buffer) =>
    lines.push(Buffer.concat([Buffer.from(`${name}: `, 'latin1'), typeof value === 'string' ? Buffer.from(value, 'latin1') : value, Buffer.from('\r\n')]));
  if (r.defaults !== false) {
    add('Host', '127.0.0.1');
    add('Connection', 'close');
  }
  for (const [name, value] of r.headers ?? []) add(name, value);
  const framing = r.framing ?? 'auto';
  let body = r.body ?? Buffer.alloc(0);
  if (framing === 'chunked') {
    add('Transfer-Encoding', 'chunked');
    const parts: Buffer[] = [];
    for (let i = 0; i < body.length; i += 1000) {
      const c = body.subarray(i, i + 1000);
      parts.push(Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from('0\r\n\r\n'));
    body = Buffer.concat(parts);
  } else if (framing === 'auto' && r.body !== undefined) {
    add('Content-Length', String(r.body.length));
  }
  return Buffer.concat([...lines, Buffer.from('\r\n'), body]);
}

/**
 * Sends raw bytes to the sandbox on a fresh connection and reads the answer until the server
 * closes it (send `Connection: close`, or `halfClose` to end our side right after the bytes).
 */
export function rawHttp(url: string, bytes: Buffer | string, { timeoutMs = 10_000, halfClose = false } = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let timedOut = false;
    let done = false;
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    const finish = () => {
      if (done) return;
      done = true;
      resolve({ ...parseRawAnswer(Buffer.concat(chunks)), timedOut });
    };
    socket.setTimeout(timeoutMs, () => {
      timedOut = true;
      socket.destroy();
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', () => {}); // EPIPE / ECONNRESET after an early answer (413): keep what came
    socket.on('connect', () => {
      if (halfClose) socket.end(bytes);
      else socket.write(bytes);
    });
  });
}

function parseRawAnswer(buf: Buffer): Omit<RawAnswer, 'timedOut'> {
  const interim: number[] = [];
  let rest = buf;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return { status: 0, headers: {}, text: rest.toString('utf8'), interim };
    const head = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0);
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const i = line.indexOf(':');
      if (i < 0) continue;
      const name = line.slice(0, i).trim().toLowerCase();
      const value = line.slice(i + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    rest = rest.subarray(end + 4);
    if (status >= 100 && status < 200) {
      interim.push(status);
      continue;
    }
    let body: Buffer = rest;
    if (headers['content-length'] !== undefined) body = rest.subarray(0, Number(headers['content-length']));
    else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(rest);
    return { status, headers, text: body.toString('utf8'), interim };
  }
}

function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

// ---- the observable state: observable-state.ts -------------------------------------------------

export { memoryState, observableState, type ObservableState } from './observable-state.js';

/** The server still answers: health without a token, and an authenticated read. Throws if not. */
export async function assertAlive(t: TestSandbox, key = t.keyOf('@alice')): Promise<void> {
  const health = await t.call('GET', '/_sandbox/health');
  if (health.status !== 200) throw new Error(`GET /_sandbox/health answered ${health.status}: ${health.text}`);
  const me = await t.call('GET', '/v1/accounts/me', { key });
  if (me.status !== 200) throw new Error(`GET /v1/accounts/me answered ${me.status}: ${me.text}`);
}

/** The records of one table of a (closed) sandbox database, parsed. */
/** A second, read-only connection: what another process would find on disk right now. */
export function onDisk<T>(path: string, sql: string): T[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

export function dbRecords(path: string, table: string): any[] {
  return onDisk<{ record: string }>(path, `SELECT record FROM ${table} ORDER BY rowid`).map((r) => JSON.parse(r.record));
}

/** Runs SQL against a (closed) sandbox database: to play an older or damaged file. */
export function dbExec(path: string, sql: string): void {
  const db = new Database(path);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/** Everything a sandbox keeps on disk for a database (the file, its WAL and shared memory), as text to search. */
export function dbBytes(path: string): string {
  return ['', '-wal', '-shm'].map((s) => (existsSync(path + s) ? readFileSync(path + s).toString('latin1') : '')).join('\n');
}
