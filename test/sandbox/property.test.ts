// Property-based tests (fast-check) against every sandbox endpoint. Generated requests — odd JSON,
// right field names with wrong types, raw bytes, odd headers, paths and query strings — must get:
//   1. a well-formed answer: a 2xx that passes the answer check (helpers.ts), or a 4xx with the one
//      error envelope and a documented code; never a 5xx, never a stack trace or an internal path;
//   2. no change: a 4xx (and any GET) leaves the observable state exactly as it was;
//   3. a server that keeps answering.
// Plus targeted properties: bad amounts, idempotency, conservation of money, policy limits.
//
// Deterministic: one seed (SEED) and bounded runs. To explore, run with FC_SEED=<n> and/or
// FC_RUNS=<factor> (e.g. FC_RUNS=10); a failure prints the seed, the shrunk counterexample and
// the exact request that was sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatUnits } from '../../src/domain/amount.js';
import { EVENT_TYPES } from '../../src/domain/events.js';
import { POLICY_FIELDS } from '../../src/domain/policy.js';
import {
  ANSWER_RULES,
  assertAlive,
  checkAnswer,
  makeAgent,
  memoryState,
  observableState,
  rawHttp,
  startSandbox,
  wireBytes,
  type ObservableState,
  type RawAnswer,
  type TestSandbox,
  type WireRequest,
  units,
} from './helpers.js';

/** The one seed of every property in this file. */
export const SEED = Number(process.env.FC_SEED ?? 20261123);
const FACTOR = Number(process.env.FC_RUNS ?? 1);
const runs = (n: number) => ({ seed: SEED, numRuns: Math.max(1, Math.round(n * FACTOR)) });
const NUM_RUNS = {
  perRoute: 15,
  perRouteFocused: 20,
  deepNestingPerField: 4,
  malformedHttp: 60,
  amounts: 100,
  idempotency: 40,
  conservation: 40,
  policyLimits: 60,
};

// ---- what a well-formed answer is ------------------------------------------------------------------

/** Every error code the spec, DESIGN.md or docs/sandbox.md names, with the status it goes with. */
const ERROR_CODES: Readonly<Record<string, number>> = {
  invalid_request: 400,
  invalid_policy: 400,
  unauthorized: 401,
  insufficient_balance: 402,
  kyc_required: 403,
  not_agent_owner: 403,
  forbidden: 403,
  policy_violation: 403,
  recipient_not_found: 404,
  transaction_not_found: 404,
  transfer_not_found: 404,
  webhook_not_found: 404,
  event_not_found: 404,
  account_not_found: 404,
  key_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_reused: 409,
  transaction_expired: 409,
  transaction_already_decided: 409,
  agent_name_taken: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_host: 421,
  forbidden_origin: 403,
  request_timeout: 408,
  expectation_failed: 417,
  request_header_fields_too_large: 431,
  recipient_not_confidential_ready: 422,
  decryption_proof_invalid: 422,
  rate_limited: 429,
};

/** What must never reach a client: stack frames, internal paths, raw exception names. */
const LEAKS: ReadonlyArray<[string, RegExp]> = [
  ['a stack frame', /\bat [^\s()]+ \([^)]*:\d+:\d+\)|\bat (?:file:\/\/)?\/\S+:\d+:\d+/],
  ['node internals', /node:internal|node_modules/],
  ['an internal path', new RegExp(`/work/|${process.cwd().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)],
  ['an exception name', /\b(?:TypeError|RangeError|ReferenceError|SyntaxError|AssertionError)\b/],
];

/** Problems with one answer (empty when it is well formed). */
function answerProblems(method: string, target: string, ans: RawAnswer): string[] {
  const problems: string[] = [];
  if (ans.timedOut) return ['the server did not answer in time'];
  if (ans.status === 0) return ['the connection closed without an answer'];
  if (ans.status >= 500) problems.push(`status ${ans.status} (a server error)`);
  const everything = `${JSON.stringify(ans.headers)}\n${ans.text}`;
  for (const [what, re] of LEAKS) if (re.test(everything)) problems.push(`the answer carries ${what}: ${re.exec(everything)![0]}`);
  const requestId = ans.headers['x-request-id'];
  if (!requestId || !/^req_[0-9a-f]{32}$/.test(requestId)) problems.push(`no X-Request-Id: req_<32 hex> header (got ${JSON.stringify(requestId)})`);
  if (method === 'HEAD') return problems;
  try {
    checkAnswer(method, target, ans.status, ans.text);
  } catch (err) {
    problems.push((err as Error).message);
  }
  if (ans.status >= 400) {
    let body: { error?: { code?: unknown; request_id?: unknown } } | undefined;
    try {
      body = JSON.parse(ans.text);
    } catch {
      /* reported by checkAnswer */
    }
    const code = body?.error?.code;
    if (typeof code === 'string') {
      if (!(code in ERROR_CODES)) problems.push(`undocumented error code ${code}`);
      else if (ERROR_CODES[code] !== ans.status) problems.push(`error code ${code} comes with ${ERROR_CODES[code]}, not ${ans.status}`);
    }
    // An Idempotency-Key replay answers the first answer again, its request id included (docs/sandbox.md).
    const replayed = ans.headers['idempotent-replayed'] === 'true';
    if (body?.error && !replayed && body.error.request_id !== requestId) problems.push(`error.request_id ${String(body.error.request_id)} is not the X-Request-Id ${requestId}`);
    if (ans.status === 405 && !ans.headers.allow) problems.push('405 without an Allow header');
  } else if (ans.status < 200 || ans.status >= 300) {
    problems.push(`unexpected status ${ans.status}`);
  }
  return problems;
}

/** JSON paths where two documents differ (at most `max`). */
function differences(a: unknown, b: unknown, at = '$', out: string[] = [], max = 12): string[] {
  if (out.length >= max) return out;
  if (Object.is(a, b)) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`, out, max);
    return out;
  }
  const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v)?.slice(0, 160));
  out.push(`${at}: ${show(a)} → ${show(b)}`);
  return out;
}

function describeRequest(r: WireRequest): string {
  const body = r.body ?? Buffer.alloc(0);
  const shownBody = body.length > 300 ? `${body.subarray(0, 300).toString('utf8')}… (${body.length} bytes)` : body.toString('utf8');
  const headers = (r.headers ?? []).map(([n, v]) => `  ${n}: ${typeof v === 'string' ? v : `<bytes ${v.toString('hex')}>`}`.slice(0, 300));
  const target = r.target.length > 300 ? `${r.target.slice(0, 300)}… (${r.target.length} chars)` : r.target;
  return [`${r.method} ${target}${r.framing === 'chunked' ? ' (chunked)' : ''}`, ...headers, `  body: ${JSON.stringify(shownBody)}`].join('\n');
}

function describeAnswer(a: RawAnswer): string {
  return `${a.status} ${a.text.length > 600 ? `${a.text.slice(0, 600)}…` : a.text}`;
}

// ---- generators: values ----------------------------------------------------------------------------

/** A JSON text spliced into a body as is (numbers JSON.stringify cannot write, deep nesting). */
class Raw {
  constructor(readonly json: string) {}
  [fc.toStringMethod](): string {
    return this.json.length > 60 ? `Raw(${this.json.slice(0, 30)}…${this.json.length} chars)` : `Raw(${this.json})`;
  }
}

function toJson(v: unknown): string {
  if (v instanceof Raw) return v.json;
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : toJson(x))).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const NUMERIC_STRINGS = [
  '1e309', '-1e309', '1e-309', '99999999999999999999999.1', '-0', '+0', '0', '00', '0.0', '-1', '+1', '1e3', '1E3', '1e+3', '2e-3',
  '0x1f', '0b1', '0o7', '1_000', '1,5', '.5', '5.', '1..2', ' 1', '1 ', '\t1', '1\n', 'NaN', 'nan', 'Infinity', '-Infinity', 'inf',
  'null', 'undefined', 'true', '', ' ', '١٢٣', '１２３', '1\u00a0000', '0.1234567', '1.0000000', '123456789012345678901234567890',
  '9'.repeat(400), `0.${'0'.repeat(300)}1`, `1${'0'.repeat(70)}`, '12.50', '0.000001', '1000000', '50000.000001',
];
const RAW_NUMBERS = ['-0', '1e309', '-1e309', '1e-400', '5e-324', '1.7976931348623157e308', '123456789012345678901234567890', '0.1e1', '-0.0', '9007199254740993', '1E21', '1e-7', '100'];
const TRICKY_TEXT = [
  '\u202e', '\u202egnp.exe', '\u2066x\u2069', '\u200f', '\ufeff', '\u0000', '\u0007', '\u001b[31m', '\r\n', '\ud800', '\udfff', 'a\ud83d',
  '\ud83d\ude00', 'Ω', '€', 'e\u0301', '%00', '%2F', '../..', '<script>', '"\'', '\\', '${x}', '{{x}}', '@alice', '@ALICE', '@acme', '@bob',
  '@alice/bot', '0x1111111111111111111111111111111111111111', '0x2222222222222222222222222222222222222222', '0x000000000000000000000000000000000000dEaD',
  'USDG', 'usdg', 'USDC', 'transfer.confirmed', 'https://127.0.0.1/x', 'http://example.com/x', 'https://u:p@example.com/', '09:00-17:00', '*.example.com',
];
const char = (min: number, max: number) => fc.integer({ min, max }).map((c) => String.fromCharCode(c));

const weirdString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: char(0, 0x1f), minLength: 1, maxLength: 6 }),
  fc.string({ unit: char(0xd800, 0xdfff), minLength: 1, maxLength: 4 }),
  fc.array(fc.constantFrom(...TRICKY_TEXT), { minLength: 1, maxLength: 4 }).map((p) => p.join('')),
  fc.tuple(fc.integer({ min: 200, max: 6000 }), fc.constantFrom('x', 'é', '😀', '\u202e', '9', '\u0000', '\ud800')).map(([n, c]) => c.repeat(n)),
);

const weirdScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1, 0.5, -0.5, 2 ** 53 + 2, 1e21, -1e21, 5e-324, Number.MAX_VALUE, 1e-7),
  fc.constantFrom(...NUMERIC_STRINGS),
  fc.constantFrom(...RAW_NUMBERS).map((s) => new Raw(s)),
  fc.double(),
  fc.integer(),
  fc.bigInt().map((b) => new Raw(b.toString())),
  weirdString,
);

const FIELD_NAMES = ['to', 'amount', 'asset', 'confidential', 'memo', 'decryption_proof', 'name', 'spend_policy', 'url', 'events', 'handle', 'account', 'ms', 'event', ...POLICY_FIELDS, 'policy_id', 'updated_at'];
const weirdKey = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', ' ', ...FIELD_NAMES));

/** Nesting as deep as a 64 KiB body allows. */
const deep = fc.oneof(
  fc.integer({ min: 50, max: 30_000 }).map((d) => new Raw('['.repeat(d) + ']'.repeat(d))),
  fc.integer({ min: 50, max: 12_000 }).map((d) => new Raw('{"a":'.repeat(d) + '1' + '}'.repeat(d))),
);

const weird: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: weirdScalar },
  { weight: 2, arbitrary: fc.array(weirdScalar, { maxLength: 4 }) },
  { weight: 2, arbitrary: fc.dictionary(weirdKey, weirdScalar, { maxKeys: 4 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: deep },
);

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
/** decryption_proof values: garbage, and base64 JSON of the right shape with wrong contents. */
const proofValue = fc.oneof(
  weird,
  fc.record({ v: fc.oneof(fc.constant(1), weirdScalar), balances: fc.oneof(weird, fc.array(fc.record({ asset: fc.oneof(fc.constantFrom('USDG', 'USDC'), weirdScalar), version: fc.oneof(fc.nat(5), weirdScalar), key: fc.oneof(fc.base64String(), weirdScalar) }, { requiredKeys: [] }), { maxLength: 3 })) }, { requiredKeys: [] }).map((p) => b64(toJson(p))),
  fc.string({ maxLength: 20 }).map(b64),
);

// ---- generators: requests --------------------------------------------------------------------------

interface RouteSpec {
  method: string;
  path: string;
}
const ROUTES: RouteSpec[] = [...new Map(ANSWER_RULES.map((r) => [`${r.method} ${r.path}`, { method: r.method, path: r.path }])).values()];
const isControl = (r: RouteSpec) => r.path.startsWith('/_sandbox/');

/** Field names and a valid body per route (the webhook URL placeholder is filled in when sent). */
const BODIES: Readonly<Record<string, { fields: Record<string, fc.Arbitrary<unknown>>; valid: Record<string, unknown> }>> = {
  'POST /v1/transfers': { fields: { to: weird, amount: weird, asset: weird, confidential: weird, memo: weird }, valid: { to: '@acme', amount: '0.01', asset: 'USDG', confidential: true, memo: 'fuzz' } },
  'GET /v1/accounts/me/balances': { fields: { decryption_proof: proofValue }, valid: {} },
  'POST /v1/accounts/me/agents': {
    fields: { name: weird, spend_policy: fc.oneof(weird, fc.record(Object.fromEntries(POLICY_FIELDS.map((f) => [f, weird])), { requiredKeys: [] })) },
    valid: { name: 'fuzz', spend_policy: { daily_limit_usdc: 10 } },
  },
  'POST /v1/agents/transactions/:transaction_id/reject': { fields: { reason: weird }, valid: { reason: 'fuzz' } },
  'PATCH /v1/agents/:account_id/spend-policy': { fields: Object.fromEntries([...POLICY_FIELDS, 'policy_id', 'updated_at'].map((f) => [f, weird])), valid: { daily_limit_usdc: 1000 } },
  'POST /v1/webhooks': { fields: { url: weird, events: fc.oneof(weird, fc.array(fc.oneof(fc.constantFrom(...EVENT_TYPES), weird), { maxLength: 4 })) }, valid: { url: '{{receiver}}', events: ['transfer.confirmed'] } },
  'POST /_sandbox/fund': { fields: { handle: weird, amount: weird, asset: weird }, valid: { handle: '@acme', amount: '1' } },
  'POST /_sandbox/keys': { fields: { account: weird, name: weird }, valid: { account: '@oldwallet', name: 'k' } },
  'POST /_sandbox/clock/advance': { fields: { ms: weird }, valid: { ms: 0 } },
  'POST /_sandbox/trigger': { fields: { event: weird, account: weird }, valid: { event: 'transfer.confirmed', account: '@acme' } },
};

type BodySym =
  | { kind: 'none' }
  | { kind: 'empty' }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'text'; text: string }
  | { kind: 'json'; value: unknown }
  | { kind: 'huge'; size: number };

const bodySpec = (route: RouteSpec) => BODIES[`${route.method} ${route.path}`] ?? { fields: {}, valid: {} };
const asJson = (a: fc.Arbitrary<unknown>): fc.Arbitrary<BodySym> => a.map((value) => ({ kind: 'json' as const, value }));

/** A valid body with one field broken: a wrong value, nested deep, wrapped, or gone. */
function nearValidArb(route: RouteSpec): fc.Arbitrary<BodySym> {
  const spec = bodySpec(route);
  const names = Object.keys(spec.fields);
  return asJson(
    fc.constantFrom(...names).chain((f) => {
      const { [f]: _gone, ...rest } = spec.valid;
      const field = spec.fields[f]!;
      return fc.oneof(
        { weight: 4, arbitrary: field.map((v) => ({ ...spec.valid, [f]: v })) },
        { weight: 2, arbitrary: deep.map((v) => ({ ...spec.valid, [f]: v })) },
        { weight: 1, arbitrary: fc.constant(rest) },
        { weight: 1, arbitrary: field.map((v) => ({ ...spec.valid, [f]: [v] })) },
        { weight: 1, arbitrary: field.map((v) => ({ ...spec.valid, [f]: { [f]: v } })) },
      );
    }),
  );
}

/**
 * Bodies: none, empty, raw bytes, non-JSON text, any JSON, the route's real field names with
 * wrong values, near-valid ones, too large. `focus` weights the ones that reach the handler's
 * validation (the real field names) more.
 */
function bodyArb(route: RouteSpec, focus = false): fc.Arbitrary<BodySym> {
  const spec = bodySpec(route);
  const names = Object.keys(spec.fields);
  const options: Array<fc.WeightedArbitrary<BodySym>> = [
    { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'empty' as const }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ kind: 'bytes' as const, bytes })) },
    { weight: 1, arbitrary: fc.oneof(weirdString, fc.constantFrom('{', '{"a":', '[1,]', "{'a':1}", '{"a":1}{}', 'null', 'true', '"str"', '1e309', '-0', '\ufeff{}', '{"to":"@acme","amount":"1",}')).map((text) => ({ kind: 'text' as const, text })) },
    { weight: 2, arbitrary: asJson(fc.jsonValue({ maxDepth: 3 })) },
    { weight: 1, arbitrary: asJson(weird) },
    { weight: 1, arbitrary: fc.integer({ min: 64 * 1024 + 1, max: 70_000 }).map((size) => ({ kind: 'huge' as const, size })) },
    { weight: 1, arbitrary: asJson(fc.constant(spec.valid)) },
    { weight: 1, arbitrary: asJson(fc.tuple(weirdKey, weird).map(([k, v]) => ({ ...spec.valid, [k]: v }))) },
  ];
  if (names.length) {
    options.push({ weight: focus ? 12 : 4, arbitrary: asJson(fc.record(spec.fields, { requiredKeys: [] })) });
    options.push({ weight: focus ? 20 : 4, arbitrary: nearValidArb(route) });
  }
  return fc.oneof(...options);
}

type Who = 'alice' | 'acme' | 'bob' | 'oldwallet' | 'bot' | 'other';
const WHO: readonly Who[] = ['alice', 'acme', 'bob', 'oldwallet', 'bot', 'other'];

/** Header values with {who} / {admin} placeholders, filled in with the current keys when sent. */
const AUTH_VALUES = [
  'Bearer {alice}', 'Bearer {bot}', 'Bearer {bob}', 'Bearer', 'Bearer ', 'bearer {alice}', 'BEARER\t{acme}', 'Bearer {alice} extra', 'Basic {alice}',
  'Token {alice}', ' Bearer {alice}', 'Bearer  {alice}  ', `Bearer svc_live_${'A'.repeat(32)}`, `Bearer svc_test_${'A'.repeat(300)}`, 'Bearer {alice}{alice}',
  'Bearer {admin}', '{admin}', ' {admin} ', '{admin}x', '', 'Bearer svc_test_', 'Bearer {alice},Bearer {acme}', 'Bearer svc_test_\u00e9\u00ff',
];
const authArb = (route: RouteSpec): fc.Arbitrary<Array<[string, string]>> =>
  fc.oneof(
    // @alice owns every fixture (agent, held transactions, transfer, webhook): her key reaches the most.
    { weight: isControl(route) ? 1 : 5, arbitrary: fc.constant<Array<[string, string]>>([['Authorization', 'Bearer {alice}']]) },
    { weight: isControl(route) ? 1 : 4, arbitrary: fc.constantFrom(...WHO).map((w): Array<[string, string]> => [['Authorization', `Bearer {${w}}`]]) },
    {
      weight: isControl(route) ? 8 : 1,
      arbitrary: fc.constantFrom<Array<[string, string]>>([['X-Sandbox-Admin-Token', '{admin}']], [['Authorization', 'Bearer {admin}']], [['x-sandbox-admin-token', ' {admin} ']]),
    },
    { weight: 1, arbitrary: fc.constant<Array<[string, string]>>([]) },
    {
      weight: 3,
      arbitrary: fc.array(
        fc.tuple(
          fc.constantFrom('Authorization', 'authorization', 'AUTHORIZATION', 'X-Sandbox-Admin-Token'),
          fc.oneof(fc.constantFrom(...AUTH_VALUES), fc.string({ unit: char(0x21, 0x7e), maxLength: 40 }).map((s) => `Bearer ${s}`)),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    },
  );

/** Idempotency-Key: none, edge lengths, spaces, non-ASCII (sent as UTF-8 or Latin-1 bytes), repeated. */
const idemArb: fc.Arbitrary<Array<string | Buffer>> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Array<string | Buffer>>([]) },
  { weight: 2, arbitrary: fc.constantFrom('', ' ', 'a'.repeat(255), 'a'.repeat(256), 'b'.repeat(1000), 'key with space', 'tab\there', 'x').map((k) => [k]) },
  { weight: 2, arbitrary: fc.string({ unit: char(0x21, 0x7e), minLength: 1, maxLength: 255 }).map((k) => [k]) },
  { weight: 1, arbitrary: fc.constantFrom('ünïcödé', '☃', '\u202e', 'k\u00a0k').map((k) => [Buffer.from(k, 'utf8')]) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 40 }).map((b) => [Buffer.from(b.map((x) => 0x80 | x))]) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ unit: char(0x21, 0x7e), minLength: 1, maxLength: 20 }), fc.string({ unit: char(0x21, 0x7e), minLength: 1, maxLength: 20 })).map(([a, b]) => [a, b]) },
);

const CONTENT_TYPES = ['application/json', 'text/plain', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=--x', '', '*/*', 'application/json, text/plain', 'APPLICATION/JSON;;;', 'application/json; charset=\u00ff'];
const contentTypeArb = fc.oneof({ weight: 3, arbitrary: fc.constant([] as string[]) }, { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES).map((c) => [c]) }, { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...CONTENT_TYPES), fc.constantFrom(...CONTENT_TYPES)).map(([a, b]) => [a, b]) });

const EXTRA_HEADERS: Array<[string, string]> = [
  ['Expect', '100-continue'], ['Accept', 'text/html'], ['Accept-Encoding', 'gzip, br'], ['X-Request-Id', 'req_fake'], ['Content-Encoding', 'gzip'],
  ['X-Forwarded-For', '203.0.113.9'], ['Origin', 'https://evil.example'], ['Cookie', 'a=b'], ['Range', 'bytes=0-1'], ['X-HTTP-Method-Override', 'DELETE'],
  ['X-Sandbox-Admin-Token', ''], ['If-None-Match', '*'], ['Accept-Charset', 'utf-16'], ['X-Padding', 'p'.repeat(2000)],
];

/** A path parameter: the fixture id (as is or altered) or a literal, already percent-encoded. */
type ParamSym = { kind: 'fixture'; variant: 'exact' | 'upper' | 'suffix' | 'prefix' | 'encoded' | 'other' } | { kind: 'literal'; wire: string };
const PARAM_LITERALS = [
  '', '.', '..', '%2e%2e', '%00', '%2F', 'a%2Fb', '%ED%A0%80', '%', '%zz', '%E2%80%AE', '%20', 'a'.repeat(3000), '*', '~', "'", '(', ')', '!', '$', '&', '+', ',', ';', '=', ':', '@',
  'tr_aaaaaaaaaaaaaaaaaaaaaaaa', 'acct_aaaaaaaaaaaaaaaaaaaa', 'txn_aaaaaaaaaaaaaaaaaaaaaaaa', 'wh_aaaa', 'evt_aaaa', 'key_aaaa', '__proto__', 'constructor', 'null', 'undefined', '0', '-1',
];
const paramArb: fc.Arbitrary<ParamSym> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'fixture' as const, variant: 'exact' as const }) },
  { weight: 2, arbitrary: fc.constantFrom('upper', 'suffix', 'prefix', 'encoded', 'other').map((variant) => ({ kind: 'fixture' as const, variant: variant as 'exact' })) },
  { weight: 2, arbitrary: fc.constantFrom(...PARAM_LITERALS).map((wire) => ({ kind: 'literal' as const, wire })) },
  { weight: 1, arbitrary: fc.oneof(weirdString, fc.string({ unit: 'grapheme', maxLength: 20 })).map((s) => ({ kind: 'literal' as const, wire: encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '')).slice(0, 3000) })) },
);

const MUTATIONS = ['none', 'trailing', 'trailing2', 'doubleLead', 'doubleInner', 'dot', 'dotdot', 'upper', 'encodeStatic', 'nul', 'longPad', 'semicolon', 'fragmentish'] as const;
type Mutation = (typeof MUTATIONS)[number];
const mutationArb = fc.oneof({ weight: 6, arbitrary: fc.constant<Mutation>('none') }, { weight: 4, arbitrary: fc.constantFrom(...MUTATIONS) });

const QUERY_NAMES = ['limit', 'offset', 'status', 'from', 'to', 'account', 'LIMIT', 'limit[]', 'limit%00', '', 'x'];
const QUERY_VALUES = [
  '', '0', '1', '-1', '20', '100', '101', '1000', '1001', '9007199254740991', '9007199254740993', '99999999999999999', '1e3', '1.5', 'abc', '%00', '%zz', '+1', '%201',
  '01', '%EF%BC%91', 'pending', 'confirmed', 'failed', 'PENDING', '2025-01-31', '2025-01-31T12:00:00Z', '2025-01-31T12:00:00+01:00', '2025-01-31T12:00:00%2001:00', '2025-13-45',
  '2025-01-31T12:00:00', '9999-12-31', '0000-01-01', '@alice', '@nobody', '%40acme', 'a'.repeat(1000),
];
const queryArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('?', '?&&', '?=', '??', '?&limit', '?limit', '?limit=1&limit=2', '?offset=0&offset=0', '?status=pending&status=pending', '?account=@alice&account=@alice') },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom(...QUERY_NAMES), fc.oneof(fc.constantFrom(...QUERY_VALUES), fc.nat().map(String), fc.string({ maxLength: 10 }).map(encodeURIComponent))), { minLength: 1, maxLength: 4 })
      .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
  },
);

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

interface RequestSym {
  method: string;
  params: ParamSym[];
  mutation: Mutation;
  query: string;
  auth: Array<[string, string]>;
  idem: Array<string | Buffer>;
  contentType: string[];
  extra: Array<[string, string]>;
  body: BodySym;
  chunked: boolean;
}

function requestArb(route: RouteSpec): fc.Arbitrary<RequestSym> {
  const nParams = route.path.split('/').filter((s) => s.startsWith(':')).length;
  return fc.record({
    method: fc.oneof({ weight: 8, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
    params: fc.array(paramArb, { minLength: nParams, maxLength: nParams }),
    mutation: mutationArb,
    query: route.method === 'GET' ? queryArb : fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryArb }),
    auth: authArb(route),
    idem: idemArb,
    contentType: contentTypeArb,
    extra: fc.subarray(EXTRA_HEADERS, { maxLength: 2 }),
    body: bodyArb(route),
    chunked: fc.boolean(),
  });
}

/** The right method, path and principal (the fixtures' owner, or the admin): the body, the query and Idempotency-Key vary. */
function focusedRequestArb(route: RouteSpec): fc.Arbitrary<RequestSym> {
  const nParams = route.path.split('/').filter((s) => s.startsWith(':')).length;
  const auth: Array<[string, string]> = isControl(route) ? [['X-Sandbox-Admin-Token', '{admin}']] : [['Authorization', 'Bearer {alice}']];
  return fc.record({
    method: fc.constant(route.method),
    params: fc.constant(Array.from({ length: nParams }, () => ({ kind: 'fixture' as const, variant: 'exact' as const }))),
    mutation: fc.constant<Mutation>('none'),
    query: route.method === 'GET' ? queryArb : fc.constant(''),
    auth: fc.oneof({ weight: 5, arbitrary: fc.constant(auth) }, { weight: 1, arbitrary: fc.constantFrom<Who>('acme', 'bob', 'bot').map((w): Array<[string, string]> => [['Authorization', `Bearer {${w}}`]]) }),
    idem: fc.oneof({ weight: 3, arbitrary: fc.constant<Array<string | Buffer>>([]) }, { weight: 1, arbitrary: idemArb }),
    contentType: fc.constant(['application/json']),
    extra: fc.constant([]),
    body: bodyArb(route, true),
    chunked: fc.boolean(),
  });
}

// ---- fixtures: a world with something behind every id ------------------------------------------------

interface Fixtures {
  t: TestSandbox;
  receiverUrl: string;
  keys: Record<Who, string>;
  ids: {
    transfer: string;
    agent: string;
    foreignAgent: string;
    alice: string;
    held: string[];
    webhook: string;
    event: string;
    spareKey: string;
  };
  baseline: ObservableState;
}

async function expectStatus(res: Promise<{ status: number; text: string; body: unknown }>, status: number) {
  const r = await res;
  if (r.status !== status) throw new Error(`fixture setup: expected ${status}, got ${r.status} ${r.text}`);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return r.body as any;
}

/** Agents, held transactions, a transfer, a webhook with an event, a spare key: real ids for every route. */
async function buildFixtures(t: TestSandbox, receiverUrl: string, previous?: Fixtures): Promise<Fixtures> {
  const bot = await makeAgent(t, { hitl_threshold_usdc: 1, per_transaction_limit_usdc: 500 }, { owner: '@alice', name: 'bot', fund: '100' });
  const other = await makeAgent(t, {}, { owner: '@acme', name: 'other', fund: '10' });
  const held: string[] = [];
  for (let i = 0; i < 3; i++) {
    const h = await expectStatus(t.call('POST', '/v1/transfers', { key: bot.key, body: { to: '@acme', amount: '5' } }), 202);
    held.push(h.transaction_id);
  }
  const transfer = await expectStatus(t.as('@alice').send({ to: '@acme', amount: '1' }), 201);
  const webhook = await expectStatus(t.as('@alice').post('/v1/webhooks', { url: receiverUrl, events: [...EVENT_TYPES] }), 201);
  const event = await expectStatus(t.admin('POST', '/_sandbox/trigger', { event: 'transfer.confirmed', account: '@alice' }), 202);
  const spare = await expectStatus(t.admin('POST', '/_sandbox/keys', { account: '@acme', name: 'spare' }), 201);
  await t.sandbox.webhooksIdle();
  const keys = { alice: t.keyOf('@alice'), acme: t.keyOf('@acme'), bob: t.keyOf('@bob'), oldwallet: t.keyOf('@oldwallet'), bot: bot.key, other: other.key };
  const fx: Fixtures = previous ?? ({} as Fixtures);
  Object.assign(fx, {
    t,
    receiverUrl,
    keys,
    ids: { transfer: transfer.transfer_id, agent: bot.account_id, foreignAgent: other.account_id, alice: t.accountId('@alice'), held, webhook: webhook.webhook_id, event: event.event_id, spareKey: spare.key_id },
  });
  fx.baseline = await snapshot(fx);
  return fx;
}

const snapshot = (fx: Fixtures) => observableState(fx.t, { '@alice/bot': fx.keys.bot, '@acme/other': fx.keys.other });

/** The fixture id a path parameter stands for. */
function fixtureId(fx: Fixtures, route: RouteSpec, index: number, variant: string): string {
  const name = route.path.split('/').filter((s) => s.startsWith(':'))[index]!;
  let id: string;
  if (name === ':id') id = route.path.startsWith('/v1/webhooks') ? fx.ids.webhook : fx.ids.transfer;
  else if (name === ':account_id') id = variant === 'other' ? fx.ids.foreignAgent : fx.ids.agent;
  else if (name === ':transaction_id') id = fx.ids.held[variant === 'other' ? 1 : 0]!;
  else if (name === ':event_id') id = fx.ids.event;
  else if (name === ':key_id') id = fx.ids.spareKey;
  else throw new Error(`no fixture for ${name}`);
  switch (variant) {
    case 'upper':
      return id.toUpperCase();
    case 'suffix':
      return `${id}x`;
    case 'prefix':
      return `x${id}`;
    case 'encoded':
      return [...id].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    case 'other':
      return name === ':account_id' ? fx.ids.foreignAgent : name === ':transaction_id' ? id : fx.ids.alice;
    default:
      return id;
  }
}

function mutatePath(path: string, m: Mutation): string {
  switch (m) {
    case 'trailing':
      return `${path}/`;
    case 'trailing2':
      return `${path}//`;
    case 'doubleLead':
      return `/${path}`;
    case 'doubleInner': {
      const i = path.indexOf('/', 1);
      return i < 0 ? `${path}//` : `${path.slice(0, i)}/${path.slice(i)}`;
    }
    case 'dot':
      return path.replace(/^\/([^/]+)/, '/$1/.');
    case 'dotdot':
      return `${path}/..`;
    case 'upper':
      return path.toUpperCase();
    case 'encodeStatic':
      return path.replace(/^\/(.)/, (_m, c: string) => `/%${c.charCodeAt(0).toString(16)}`);
    case 'nul':
      return `${path}%00`;
    case 'longPad':
      return `${path}/${'x'.repeat(3000)}`;
    case 'semicolon':
      return `${path};jsessionid=1`;
    case 'fragmentish':
      return `${path}%23frag`;
    default:
      return path;
  }
}

function fill(template: string, fx: Fixtures): string {
  return template.replace(/\{(alice|acme|bob|oldwallet|bot|other|admin)\}/g, (_m, who: string) => (who === 'admin' ? fx.t.sandbox.adminToken : fx.keys[who as Who]));
}

function bodyBytes(b: BodySym, fx: Fixtures): Buffer | undefined {
  switch (b.kind) {
    case 'none':
      return undefined;
    case 'empty':
      return Buffer.alloc(0);
    case 'bytes':
      return Buffer.from(b.bytes);
    case 'text':
      return Buffer.from(b.text, 'utf8');
    case 'json':
      return Buffer.from(toJson(b.value).replaceAll('{{receiver}}', fx.receiverUrl), 'utf8');
    case 'huge':
      return Buffer.from(JSON.stringify({ memo: 'x'.repeat(b.size) }), 'utf8');
  }
}

function resolve(fx: Fixtures, route: RouteSpec, s: RequestSym): WireRequest {
  let i = 0;
  const path = route.path
    .split('/')
    .map((seg) => {
      if (!seg.startsWith(':')) return seg;
      const p = s.params[i]!;
      const v = p.kind === 'literal' ? p.wire : encodeURIComponent(fixtureId(fx, route, i, p.variant));
      i++;
      return v;
    })
    .join('/');
  const headers: Array<[string, string | Buffer]> = s.auth.map(([n, v]) => [n, fill(v, fx)]);
  for (const k of s.idem) headers.push(['Idempotency-Key', k]);
  for (const c of s.contentType) headers.push(['Content-Type', c]);
  headers.push(...s.extra);
  const body = bodyBytes(s.body, fx);
  if (body !== undefined && s.contentType.length === 0 && s.body.kind === 'json') headers.push(['Content-Type', 'application/json']);
  const req: WireRequest = { method: s.method, target: mutatePath(path, s.mutation) + s.query, headers, ...(body !== undefined ? { body } : {}), framing: body !== undefined && s.chunked ? 'chunked' : 'auto' };
  // Well-formed HTTP only: node's own limit on the request head is 16 KiB (over it: the malformed-HTTP properties).
  const head = wireBytes({ ...req, body: undefined }).length;
  if (head > 15_000) throw new Error(`test generator bug: a ${head}-byte request head is over node's limit`);
  return req;
}

// ---- the three invariants for one request ------------------------------------------------------------

async function sendAndCheck(fx: Fixtures, req: WireRequest, after?: (ans: RawAnswer) => Promise<void>): Promise<RawAnswer> {
  const ans = await rawHttp(fx.t.sandbox.url, wireBytes(req));
  const fail = (what: string): never => {
    throw new Error(`${what}\nrequest:\n${describeRequest(req)}\nanswer: ${describeAnswer(ans)}`);
  };
  // 1. a well-formed answer
  const problems = answerProblems(req.method, req.target, ans);
  if (problems.length) fail(`ill-formed answer:\n  - ${problems.join('\n  - ')}`);
  // 2. a rejected request, and any read, changes nothing
  const changesAllowed = ans.status < 400 && req.method !== 'GET' && req.method !== 'HEAD';
  if (after) await after(ans);
  const now = await snapshot(fx);
  if (!changesAllowed) {
    const diff = differences(fx.baseline, now);
    if (diff.length) fail(`a ${ans.status} answer to ${req.method} changed the state:\n  ${diff.join('\n  ')}`);
  }
  fx.baseline = now;
  // 3. the server keeps answering
  await assertAlive(fx.t, fx.keys.alice);
  return ans;
}

// ---- the properties -------------------------------------------------------------------------------------

// In order even under --sequence.shuffle: the last test judges what the ones before it reached.
describe('every endpoint: generated requests get a well-formed answer and a rejected one changes nothing', { shuffle: false }, () => {
  let receiver: Server;
  let receiverUrl: string;
  let t: TestSandbox;
  let fx: Fixtures;

  beforeAll(async () => {
    receiver = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    t = await startSandbox();
    fx = await buildFixtures(t, receiverUrl);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => receiver?.close(r));
    if (process.env.FC_STATS) for (const [route, m] of seen) console.log(`${route}: ${[...m].sort().map(([k, v]) => `${k} ×${v}`).join(', ')}`);
  });
  // Each property starts from the same world: a fresh seed and fixtures (an earlier one may have
  // approved the held transactions, deleted the webhook or revoked the spare key).
  beforeEach(async () => {
    const reset = await t.admin('POST', '/_sandbox/reset');
    if (reset.status !== 200) throw new Error(`reset: ${reset.status} ${reset.text}`);
    t.adopt(reset.body.seeded);
    await buildFixtures(t, receiverUrl, fx);
  });
  afterEach(async () => {
    await assertAlive(t, fx.keys.alice);
  });

  it('covers every route the sandbox serves', () => {
    expect(ROUTES.length).toBeGreaterThanOrEqual(29);
    for (const key of Object.keys(BODIES)) expect(ROUTES.map((r) => `${r.method} ${r.path}`)).toContain(key);
  });

  it('the snapshot sees every kind of change (so "nothing changed" means something)', async () => {
    const changes: Array<[string, () => Promise<unknown>]> = [
      ['a transfer', () => t.as('@alice').send({ to: '@acme', amount: '0.01' })],
      ['a settlement', () => t.sandbox.advance(1500)],
      ['a policy patch', () => t.call('PATCH', `/v1/agents/${fx.ids.agent}/spend-policy`, { key: fx.keys.alice, body: { daily_limit_usdc: 12345 } })],
      ['a suspension', () => t.as('@alice').post(`/v1/agents/${fx.ids.agent}/suspend`)],
      ['a resumption', () => t.as('@alice').post(`/v1/agents/${fx.ids.agent}/resume`)],
      ['an approval', () => t.as('@alice').post(`/v1/agents/transactions/${fx.ids.held[2]}/approve`)],
      ['a held transaction', () => t.call('POST', '/v1/transfers', { key: fx.keys.bot, body: { to: '@acme', amount: '2' } })],
      ['a webhook', () => t.as('@acme').post('/v1/webhooks', { url: receiverUrl, events: ['transfer.failed'] })],
      ['a new key', () => t.admin('POST', '/_sandbox/keys', { account: '@bob', name: 'snap' })],
      ['a revoked key', () => t.admin('POST', `/_sandbox/keys/${fx.ids.spareKey}/revoke`)],
      ['a funding', () => t.admin('POST', '/_sandbox/fund', { handle: '@oldwallet', amount: '0.5', asset: 'USDC' })],
      ['a clock move', () => t.admin('POST', '/_sandbox/clock/advance', { ms: 1 })],
      ['an agent', () => t.as('@acme').post('/v1/accounts/me/agents', { name: 'snap', spend_policy: {} })],
    ];
    for (const [what, change] of changes) {
      const before = await snapshot(fx);
      const res = (await change()) as { status?: number } | undefined;
      if (res?.status !== undefined) expect(res.status, what).toBeLessThan(300);
      const after = await snapshot(fx);
      expect(differences(before, after), `${what} went unseen`).not.toEqual([]);
      expect(differences(after, await snapshot(fx)), `${what}: reading the snapshot again changed it`).toEqual([]);
    }
    fx.baseline = await snapshot(fx);
  });

  /** What the generated requests got, per route: so a generator that never reaches a handler shows up. */
  const seen = new Map<string, Map<string, number>>();
  const record = (route: RouteSpec, ans: RawAnswer) => {
    const key = `${route.method} ${route.path}`;
    let code = '';
    try {
      code = JSON.parse(ans.text)?.error?.code ?? '';
    } catch {
      /* HEAD, or not JSON (reported by the answer check) */
    }
    const m = seen.get(key) ?? new Map<string, number>();
    m.set(`${ans.status}${code ? ` ${code}` : ''}`, (m.get(`${ans.status}${code ? ` ${code}` : ''}`) ?? 0) + 1);
    seen.set(key, m);
  };

  const check = (route: RouteSpec) => async (sym: RequestSym) => {
    const req = resolve(fx, route, sym);
    await sendAndCheck(fx, req, async (ans) => {
      record(route, ans);
      // A reset that went through replaced every key: take the new ones and rebuild the fixtures.
      if (route.path === '/_sandbox/reset' && ans.status === 200) {
        t.adopt(JSON.parse(ans.text).seeded);
        await buildFixtures(t, receiverUrl, fx);
      }
    });
  };

  for (const route of ROUTES) {
    it(`${route.method} ${route.path}: odd methods, paths, queries, headers, keys and bodies`, async () => {
      await fc.assert(fc.asyncProperty(requestArb(route), check(route)), runs(NUM_RUNS.perRoute));
    });
    it(`${route.method} ${route.path}: the right caller, any body${route.method === 'GET' ? ' and query' : ''}`, async () => {
      await fc.assert(fc.asyncProperty(focusedRequestArb(route), check(route)), runs(NUM_RUNS.perRouteFocused));
    });
  }

  it('nesting at any depth in every field of every body: never a 5xx, nothing changes', async () => {
    // Every (route, field) pair gets its own runs: a bug in one field must not hide behind luck.
    const pairs = ROUTES.flatMap((route) => Object.keys(bodySpec(route).fields).map((field) => [route, field] as const));
    const failures: string[] = [];
    for (const [route, f] of pairs) {
      const spec = bodySpec(route);
      await fc.assert(
        fc.asyncProperty(fc.noBias(fc.integer({ min: 1, max: 30_000 })), fc.constantFrom('array', 'object'), fc.constantFrom('value', 'element'), async (depth, shape, where) => {
          const d = shape === 'array' ? depth : Math.min(depth, 10_000);
          const nested = shape === 'array' ? '['.repeat(d) + ']'.repeat(d) : '{"a":'.repeat(d) + '1' + '}'.repeat(d);
          const value = new Raw(where === 'value' ? nested : `[${JSON.stringify(f === 'events' ? 'transfer.confirmed' : 'x')},${nested}]`);
          await check(route)({
            method: route.method,
            params: route.path.split('/').filter((seg) => seg.startsWith(':')).map(() => ({ kind: 'fixture' as const, variant: 'exact' as const })),
            mutation: 'none',
            query: '',
            auth: isControl(route) ? [['X-Sandbox-Admin-Token', '{admin}']] : [['Authorization', 'Bearer {alice}']],
            idem: [],
            contentType: ['application/json'],
            extra: [],
            body: { kind: 'json', value: { ...spec.valid, [f]: value } },
            chunked: false,
          });
        }),
        runs(NUM_RUNS.deepNestingPerField),
      ).catch((err: Error) => failures.push(`${route.method} ${route.path}, field ${f}:\n${err.message}`));
    }
    if (failures.length) throw new Error(`${failures.length} of ${pairs.length} fields fail:\n\n${failures.join('\n\n')}`);
  });

  it('the generated requests reached every handler: each route answered at least one 2xx and one 4xx', () => {
    if (seen.size === 0) return; // a filtered run (-t): nothing to judge
    const missing = ROUTES.map((r) => `${r.method} ${r.path}`).filter((k) => {
      const statuses = [...(seen.get(k)?.keys() ?? [])].map((x) => Number(x.slice(0, 3)));
      return !statuses.some((x) => x < 300) || !statuses.some((x) => x >= 400);
    });
    expect(missing).toEqual([]);
  });
});

describe('malformed HTTP on the wire', () => {
  let t: TestSandbox;
  let fx: Fixtures;
  beforeAll(async () => {
    t = await startSandbox();
    fx = await buildFixtures(t, 'http://127.0.0.1:9/hook');
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(async () => {
    await assertAlive(t, fx.keys.alice);
  });

  /** A request that would change nothing if it were read normally, broken in one way at the byte level. */
  interface Broken {
    base: 'health' | 'me' | 'transfer' | 'reset';
    flaw: string;
    arg: number;
  }
  const FLAWS = [
    'method-lower', 'method-unknown', 'method-empty', 'target-space', 'target-ctl', 'target-del', 'target-utf8', 'target-latin1', 'target-quote', 'target-backslash',
    'target-brace', 'target-huge', 'target-noslash', 'target-absolute', 'target-star', 'version-2', 'version-bad', 'version-lower', 'version-none', 'header-ctl',
    'header-name-space', 'header-name-paren', 'header-fold', 'header-huge', 'header-many', 'no-host', 'two-hosts', 'cl-abc', 'cl-negative', 'cl-two', 'cl-short',
    'cl-and-te', 'te-bad-chunk', 'te-unknown', 'expect-odd', 'lf-only', 'nul-in-header', 'utf8-header-name',
  ] as const;
  const brokenArb: fc.Arbitrary<Broken> = fc.record({
    base: fc.constantFrom('health', 'me', 'transfer', 'reset'),
    flaw: fc.constantFrom(...FLAWS),
    arg: fc.nat(0xff),
  });

  /** The bytes, and whether our side must half-close (the server legitimately waits for more). */
  function brokenBytes(b: Broken): { bytes: Buffer; halfClose: boolean; label: string } {
    const base = {
      health: { method: 'GET', target: '/_sandbox/health', headers: [] as Array<[string, string]>, body: '' },
      me: { method: 'GET', target: '/v1/accounts/me', headers: [['Authorization', `Bearer ${fx.keys.alice}`]] as Array<[string, string]>, body: '' },
      transfer: { method: 'POST', target: '/v1/transfers', headers: [['Authorization', `Bearer ${fx.keys.alice}`], ['Content-Type', 'application/json']] as Array<[string, string]>, body: '{}' },
      reset: { method: 'POST', target: '/_sandbox/reset', headers: [] as Array<[string, string]>, body: '{}' },
    }[b.base];
    let { method, target } = base;
    let version = 'HTTP/1.1';
    const headers: Array<[string, string | Buffer]> = [['Host', '127.0.0.1'], ['Connection', 'close'], ...base.headers];
    let body = Buffer.from(base.body);
    let framing: 'cl' | 'none' = 'cl';
    let halfClose = false;
    let eol = '\r\n';
    switch (b.flaw) {
      case 'method-lower': method = method.toLowerCase(); break;
      case 'method-unknown': method = 'FROB'; break;
      case 'method-empty': method = ''; break;
      case 'target-space': target = `${target} x`; break;
      case 'target-ctl': target = `${target}${String.fromCharCode(b.arg % 0x20)}`; break;
      case 'target-del': target = `${target}\x7f`; break;
      case 'target-utf8': target = `${target}/é☃`; break;
      case 'target-latin1': target = `${target}${String.fromCharCode(0x80 | b.arg)}`; break;
      case 'target-quote': target = `${target}"<>`; break;
      case 'target-backslash': target = `${target}\\..\\`; break;
      case 'target-brace': target = `${target}{|}^\``; break;
      case 'target-huge': target = `${target}/${'a'.repeat(17_000 + b.arg * 10)}`; break;
      case 'target-noslash': target = target.slice(1); break;
      case 'target-absolute': target = `http://evil.example${target}`; break;
      case 'target-star': target = '*'; break;
      case 'version-2': version = 'HTTP/2.0'; break;
      case 'version-bad': version = 'HTTP/1.x'; break;
      case 'version-lower': version = 'http/1.1'; break;
      case 'version-none': version = ''; break;
      case 'header-ctl': headers.push(['X-A', `a${String.fromCharCode(b.arg % 0x20 === 9 ? 1 : b.arg % 0x20)}b`]); break;
      case 'header-name-space': headers.push(['X A', 'b']); break;
      case 'header-name-paren': headers.push(['X(A)', 'b']); break;
      case 'header-fold': headers.push(['X-A', 'a\r\n folded']); break;
      case 'header-huge': headers.push(['X-A', 'a'.repeat(17_000 + b.arg * 10)]); break;
      case 'header-many': for (let i = 0; i < 2100; i++) headers.push([`X-H${i}`, 'v']); break;
      case 'no-host': headers.splice(0, 1); break;
      case 'two-hosts': headers.push(['Host', 'evil.example']); break;
      case 'cl-abc': framing = 'none'; headers.push(['Content-Length', 'abc']); break;
      case 'cl-negative': framing = 'none'; headers.push(['Content-Length', '-1']); break;
      case 'cl-two': framing = 'none'; headers.push(['Content-Length', String(body.length)], ['Content-Length', String(body.length + 1)]); break;
      case 'cl-short': framing = 'none'; headers.push(['Content-Length', String(body.length + 1 + b.arg)]); halfClose = true; break;
      case 'cl-and-te': framing = 'none'; headers.push(['Content-Length', String(body.length)], ['Transfer-Encoding', 'chunked']); break;
      case 'te-bad-chunk': framing = 'none'; headers.push(['Transfer-Encoding', 'chunked']); body = Buffer.from(`zz\r\n${base.body}\r\n0\r\n\r\n`); break;
      case 'te-unknown': framing = 'none'; headers.push(['Transfer-Encoding', 'gzip']); break;
      case 'expect-odd': headers.push(['Expect', 'the-unexpected']); break;
      case 'lf-only': eol = '\n'; break;
      case 'nul-in-header': headers.push(['X-A', 'a\u0000b']); break;
      case 'utf8-header-name': headers.push([Buffer.from('X-Ü', 'utf8').toString('latin1'), 'b']); break;
    }
    if (framing === 'cl' && body.length) headers.push(['Content-Length', String(body.length)]);
    const head = [`${method} ${target}${version ? ` ${version}` : ''}`, ...headers.map(([n, v]) => `${n}: ${typeof v === 'string' ? v : v.toString('latin1')}`)].join(eol);
    const bytes = Buffer.concat([Buffer.from(`${head}${eol}${eol}`, 'latin1'), body]);
    return { bytes, halfClose, label: `${b.base} with ${b.flaw} (${b.arg}):\n${JSON.stringify(bytes.toString('latin1').slice(0, 400))}` };
  }

  it('never a 5xx, a stack trace or a state change; the server keeps answering', async () => {
    await fc.assert(
      fc.asyncProperty(brokenArb, async (b) => {
        const { bytes, halfClose, label } = brokenBytes(b);
        const ans = await rawHttp(t.sandbox.url, bytes, { halfClose, timeoutMs: 5_000 });
        const ctx = `\nrequest: ${label}\nanswer: ${describeAnswer(ans)} ${JSON.stringify(ans.headers)}`;
        if (ans.timedOut) throw new Error(`no answer and no close within 5 s${ctx}`);
        if (ans.status === 0 && !halfClose) throw new Error(`closed without an answer${ctx}`);
        if (ans.status >= 500) throw new Error(`server error${ctx}`);
        for (const [what, re] of LEAKS) if (re.test(ans.text)) throw new Error(`the answer carries ${what}${ctx}`);
        const now = await snapshot(fx);
        const diff = differences(fx.baseline, now);
        if (diff.length) throw new Error(`state changed:\n  ${diff.join('\n  ')}${ctx}`);
        await assertAlive(t, fx.keys.alice);
      }),
      runs(NUM_RUNS.malformedHttp),
    );
  });

  it('every answer it gets is the JSON error envelope with X-Request-Id, as docs/sandbox.md promises', async () => {
    await fc.assert(
      fc.asyncProperty(brokenArb, async (b) => {
        const { bytes, halfClose, label } = brokenBytes(b);
        const ans = await rawHttp(t.sandbox.url, bytes, { halfClose, timeoutMs: 5_000 });
        if (ans.status === 0 || (ans.status >= 200 && ans.status < 300)) return; // no answer (our side closed), or read as a normal request
        const problems = answerProblems('GET', '/malformed', ans);
        if (problems.length) throw new Error(`ill-formed answer:\n  - ${problems.join('\n  - ')}\nrequest: ${label}\nanswer: ${JSON.stringify(ans)}`);
      }),
      runs(NUM_RUNS.malformedHttp),
    );
  });
});

// ---- targeted properties ---------------------------------------------------------------------------------

/** How many transfers the whole sandbox holds (the snapshot's memory part: the API reads would be thrown away). */
const transferCount = async (t: TestSandbox) => (memoryState(t).transfers as unknown[]).length;

const positiveDecimal = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.stringMatching(/^[0-9]{0,6}$/))
  .map(([whole, frac]) => (frac ? `${whole}.${frac}` : `${whole}`))
  .filter((s) => /[1-9]/.test(s));

/** Amounts that are decimals except for one thing: more than 6 decimals, an exponent or a sign. */
const invalidAmount = fc.oneof(
  fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.stringMatching(/^[0-9]{7,40}$/)).map(([w, f]) => `${w}.${f}`),
  fc.tuple(positiveDecimal, fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 400 })).map(([m, e, s, x]) => `${m}${e}${s}${x}`),
  fc.tuple(fc.constantFrom('+', '-', '−', '+-', '--'), positiveDecimal).map(([s, d]) => `${s}${d}`),
  fc.tuple(fc.constantFrom('+', '-'), positiveDecimal, fc.constantFrom('e', 'E'), fc.integer({ min: -10, max: 10 })).map(([s, m, e, x]) => `${s}${m}${e}${x}`),
);

describe('amounts: more than 6 decimals, an exponent or a sign → 400 invalid_request, nothing moves', () => {
  let t: TestSandbox;
  let fx: Fixtures;
  beforeAll(async () => {
    t = await startSandbox();
    fx = await buildFixtures(t, 'http://127.0.0.1:9/hook');
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(async () => {
    await assertAlive(t, fx.keys.alice);
  });

  it('POST /v1/transfers (any sender, recipient and asset) and POST /_sandbox/fund', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        invalidAmount,
        fc.constantFrom<Who | 'fund'>('alice', 'acme', 'bob', 'bot', 'fund'),
        fc.constantFrom('@acme', '@alice', '@bob', '0x1111111111111111111111111111111111111111', '0x000000000000000000000000000000000000dEaD'),
        fc.constantFrom('USDG', 'USDC', undefined),
        fc.option(fc.string({ unit: char(0x21, 0x7e), minLength: 1, maxLength: 40 }), { nil: undefined }),
        async (amount, who, to, asset, idem) => {
          n++;
          const body = who === 'fund' ? { handle: to.startsWith('@') ? to : '@acme', amount, ...(asset ? { asset } : {}) } : { to: who === 'acme' && to === '@acme' ? '@alice' : to, amount, ...(asset ? { asset } : {}) };
          const headers: Array<[string, string]> = who === 'fund' ? [['X-Sandbox-Admin-Token', t.sandbox.adminToken]] : [['Authorization', `Bearer ${fx.keys[who]}`]];
          if (idem) headers.push(['Idempotency-Key', `amt${n}-${idem}`]);
          headers.push(['Content-Type', 'application/json']);
          const req: WireRequest = { method: 'POST', target: who === 'fund' ? '/_sandbox/fund' : '/v1/transfers', headers, body: Buffer.from(JSON.stringify(body)) };
          const ans = await sendAndCheck(fx, req);
          const parsed = JSON.parse(ans.text);
          if (ans.status !== 400 || parsed.error?.code !== 'invalid_request' || !/amount/.test(parsed.error?.message)) {
            throw new Error(`expected 400 invalid_request naming the amount\nrequest:\n${describeRequest(req)}\nanswer: ${describeAnswer(ans)}`);
          }
        },
      ),
      runs(NUM_RUNS.amounts),
    );
  });
});

describe('idempotency: one key, one request, any number of times → exactly one transfer', () => {
  let t: TestSandbox;
  beforeEach(async () => {
    t = await startSandbox();
  });
  afterEach(async () => {
    await assertAlive(t);
    await t.close();
  });

  it('sequential or concurrent repeats, any key order and whitespace, answer the first answer again', async () => {
    const used = new Set<string>();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          to: fc.constantFrom('@alice', '@bob', '@oldwallet', '@nobody', '0x1111111111111111111111111111111111111111', '0x2222222222222222222222222222222222222222'),
          amount: fc.oneof({ weight: 5, arbitrary: fc.tuple(fc.integer({ min: 0, max: 20 }), fc.stringMatching(/^[0-9]{0,6}$/)).map(([w, f]) => (f ? `${w}.${f}` : `${w}`)) }, { weight: 1, arbitrary: fc.constantFrom('1000000', '1.1234567', '-1') }),
          asset: fc.constantFrom('USDG', 'USDC', undefined),
          confidential: fc.constantFrom(true, false, undefined),
          memo: fc.option(fc.string({ unit: 'grapheme', maxLength: 30 }), { nil: undefined }),
        }),
        fc.string({ unit: char(0x21, 0x7e), minLength: 1, maxLength: 255 }),
        fc.integer({ min: 2, max: 6 }),
        fc.boolean(),
        fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
        async (fields, key0, times, concurrent, shuffles) => {
          run++;
          const key = used.has(key0) ? `${run}-${key0}`.slice(0, 255) : key0;
          used.add(key);
          const body = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
          // The same request written differently each time: key order and whitespace vary.
          const texts = Array.from({ length: times }, (_, i) => {
            const entries = Object.entries(body);
            const n = shuffles[i]! % (entries.length || 1);
            const rotated = [...entries.slice(n), ...entries.slice(0, n)];
            return JSON.stringify(Object.fromEntries(rotated), null, shuffles[i]! % 3);
          });
          const transfersBefore = await transferCount(t);
          const asset = (body.asset as string | undefined) ?? 'USDG';
          const balanceBefore = t.balance('@acme', asset);
          const send = (text: string) => t.call('POST', '/v1/transfers', { key: t.keyOf('@acme'), raw: text, headers: { 'idempotency-key': key } });
          const answers = concurrent ? await Promise.all(texts.map(send)) : await texts.reduce(async (acc, text) => [...(await acc), await send(text)], Promise.resolve([] as Awaited<ReturnType<typeof send>>[]));
          const first = answers.find((a) => a.headers.get('idempotent-replayed') !== 'true');
          const ctx = `\nkey ${JSON.stringify(key)}, body ${JSON.stringify(body)}, ${times}× ${concurrent ? 'concurrently' : 'in a row'}\nanswers: ${answers.map((a) => `${a.status} ${a.headers.get('idempotent-replayed') ?? ''} ${a.text.slice(0, 200)}`).join('\n  ')}`;
          if (!first) throw new Error(`every answer says it is a replay${ctx}`);
          expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length, ctx).toBe(times - 1);
          for (const a of answers) {
            expect(a.status, ctx).toBe(first.status);
            expect(a.text, ctx).toBe(first.text);
            expect(a.status, ctx).toBeLessThan(500);
          }
          const created = first.status === 201 ? 1 : 0;
          expect((await transferCount(t)) - transfersBefore, ctx).toBe(created);
          if (created) {
            expect(balanceBefore - t.balance('@acme', asset), `debited once: ${ctx}`).toBe(units(body.amount as string, asset));
            const list = await t.as('@acme').get('/v1/transfers?limit=100');
            expect(list.body.transfers.filter((x: { transfer_id: string }) => x.transfer_id === first.body.transfer_id).length, ctx).toBe(1);
          } else {
            expect(t.balance('@acme', asset), ctx).toBe(balanceBefore);
          }
        },
      ),
      runs(NUM_RUNS.idempotency),
    );
  });
});

describe('money is conserved', () => {
  let t: TestSandbox;
  beforeEach(async () => {
    t = await startSandbox();
  });
  afterEach(async () => {
    await assertAlive(t);
    await t.close();
  });

  const SEEDED = ['@alice', '@acme', '@bob', '@oldwallet'] as const;
  type Step =
    | { kind: 'send'; from: (typeof SEEDED)[number]; to: string; asset: 'USDG' | 'USDC'; permille: number; confidential: boolean; idem: boolean }
    | { kind: 'repeat' }
    | { kind: 'advance'; ms: number };
  const stepArb: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant('send' as const),
        from: fc.constantFrom(...SEEDED),
        to: fc.constantFrom('@alice', '@acme', '@bob', '@oldwallet', 'addr:@alice', 'addr:@acme', 'addr:@bob', 'addr:@oldwallet', '0x000000000000000000000000000000000000dEaD'),
        asset: fc.constantFrom('USDG' as const, 'USDC' as const),
        permille: fc.integer({ min: 0, max: 1200 }),
        confidential: fc.boolean(),
        idem: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'repeat' as const }) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 2000 }).map((ms) => ({ kind: 'advance' as const, ms })) },
  );

  it('for any sequence of transfers between seeded accounts, after settling the sum of balances is unchanged', async () => {
    const total = (asset: string) => SEEDED.reduce((s, h) => s + t.balance(h, asset), 0n);
    const start = { USDG: total('USDG'), USDC: total('USDC') };
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 12 }), async (steps) => {
        let last: { handle: string; body: Record<string, unknown>; key?: string } | undefined;
        const log: string[] = [];
        for (const step of steps) {
          if (step.kind === 'advance') {
            await t.sandbox.advance(step.ms);
            log.push(`advance ${step.ms}`);
            continue;
          }
          let send = last;
          if (step.kind === 'send') {
            const balance = t.balance(step.from, step.asset);
            const units = (balance * BigInt(step.permille)) / 1000n || 1n;
            const to = step.to.startsWith('addr:') ? t.sandbox.seeded.find((a) => a.handle === step.to.slice(5))!.public_key.toUpperCase().replace(/^0X/, '0x') : step.to;
            send = { handle: step.from, body: { to, amount: formatUnits(units, step.asset, { minFraction: 0 }), asset: step.asset, confidential: step.confidential }, ...(step.idem ? { key: `c-${n++}` } : {}) };
          }
          if (!send) continue;
          last = send;
          const res = await t.as(send.handle).send(send.body, send.key ? { headers: { 'idempotency-key': send.key } } : {});
          log.push(`${send.handle} → ${JSON.stringify(send.body)}${send.key ? ` [${send.key}]` : ''}: ${res.status} ${res.body?.error?.code ?? ''}`);
          expect([201, 400, 402, 403, 422], log.join('\n')).toContain(res.status);
        }
        await t.sandbox.advance(1500);
        const ctx = log.join('\n');
        const transfers = memoryState(t).transfers as Array<[id: string, status: string]>;
        expect(transfers.filter(([, status]) => status === 'pending'), ctx).toEqual([]);
        for (const asset of ['USDG', 'USDC'] as const) {
          expect(total(asset), `${asset}\n${ctx}`).toBe(start[asset]);
          for (const h of SEEDED) expect(t.balance(h, asset) >= 0n, ctx).toBe(true);
        }
        // The API agrees with the ledger on which balances are non-zero.
        for (const h of ['@alice', '@acme', '@oldwallet']) {
          const res = await t.as(h).get('/v1/accounts/me/balances');
          for (const b of res.body.balances as Array<{ asset: string; nonzero: boolean }>) expect(b.nonzero, `${h} ${b.asset}\n${ctx}`).toBe(t.balance(h, b.asset) > 0n);
        }
      }),
      runs(NUM_RUNS.conservation),
    );
  });
});

describe('spend-policy limits: what the API accepts it reads back, and a PATCH that answers 200 takes effect', () => {
  let t: TestSandbox;
  beforeEach(async () => {
    t = await startSandbox();
  });
  afterEach(async () => {
    await assertAlive(t);
    await t.close();
  });

  const LIMIT_FIELDS = ['daily_limit_usdc', 'per_transaction_limit_usdc', 'hitl_threshold_usdc'] as const;
  const limitValue: fc.Arbitrary<number | string> = fc.oneof(
    fc.integer({ min: 0, max: 10 ** 9 }),
    fc.tuple(fc.integer({ min: 0, max: 10 ** 6 }), fc.integer({ min: 0, max: 999_999 })).map(([w, f]) => Number(`${w}.${String(f).padStart(6, '0')}`)),
    fc.constantFrom(1e20, 1e15 + 0.5, 123456789012345680000),
    fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.stringMatching(/^[0-9]{0,6}$/)).map(([w, f]) => (f ? `${w}.${f}` : `${w}`)),
    fc.tuple(fc.integer({ min: 16, max: 400 }), fc.constantFrom('', '.5', '.123456')).map(([n, f]) => `${'9'.repeat(n)}${f}`),
    fc.tuple(fc.integer({ min: 16, max: 60 }), fc.nat(9)).map(([n, d]) => `${'1'.repeat(n)}${d}`),
    fc.constantFrom(' 10 ', '99999999999999999999999.1', '99999999999999999999999.2', '0', '0.000001'),
  );
  const policyArb = fc.record(Object.fromEntries(LIMIT_FIELDS.map((f) => [f, limitValue])) as Record<(typeof LIMIT_FIELDS)[number], fc.Arbitrary<number | string>>, { requiredKeys: [] });

  /** Creates an agent of @acme with this policy; its id, or undefined when refused (400). */
  let n = 0;
  async function create(policy: Record<string, unknown>, log: string[]): Promise<string | undefined> {
    const res = await t.as('@acme').post('/v1/accounts/me/agents', { name: `p${n++}`, spend_policy: policy }, { unchecked: true });
    log.push(`create ${JSON.stringify(policy)} → ${res.status} ${res.text.slice(0, 160)}`);
    expect([201, 400], log.join('\n')).toContain(res.status);
    return res.status === 201 ? (res.body.account_id as string) : undefined;
  }
  const exact = (v: number | string) => (typeof v === 'string' ? v.trim() : String(v));

  it('every limit the API accepts (create or PATCH) reads back as a finite JSON number: a well-formed answer', async () => {
    await fc.assert(
      fc.asyncProperty(policyArb, policyArb, async (created, patch) => {
        const log: string[] = [];
        const id = await create(created, log);
        if (!id) return;
        const path = `/v1/agents/${id}/spend-policy`;
        const read = await t.call('GET', path, { key: t.keyOf('@acme'), unchecked: true });
        log.push(`GET → ${read.status} ${read.text}`);
        expect(() => checkAnswer('GET', path, read.status, read.text), log.join('\n')).not.toThrow();
        for (const [f, v] of Object.entries(created)) expect(read.body[f], `${f}\n${log.join('\n')}`).toBe(Number(exact(v)));
        const patched = await t.call('PATCH', path, { key: t.keyOf('@acme'), body: patch, unchecked: true });
        log.push(`PATCH ${JSON.stringify(patch)} → ${patched.status} ${patched.text}`);
        expect([200, 400], log.join('\n')).toContain(patched.status);
        expect(() => checkAnswer('PATCH', path, patched.status, patched.text), log.join('\n')).not.toThrow();
      }),
      runs(NUM_RUNS.policyLimits),
    );
  });

  /** A limit a little off the given one: one more digit at the end (a patch of the same field). */
  const nudge = (v: number | string): string => {
    const text = exact(v);
    const [, frac = ''] = text.split('.');
    if (!text.includes('.')) return `${text}.5`;
    return frac.length < 6 ? `${text}1` : `${text.slice(0, -1)}${text.endsWith('1') ? '2' : '1'}`;
  };
  const patchArb = fc.oneof(
    policyArb.map((patch) => ({ patch, nudged: false })),
    fc.constant({ patch: {}, nudged: true }),
  );

  it('a PATCH that answers 200 takes effect: the engine holds exactly the limits sent', async () => {
    await fc.assert(
      fc.asyncProperty(policyArb, patchArb, async (created, p) => {
        // Half the patches move each created limit by a little (the same field, one digit more).
        const patch: Record<string, number | string> = p.nudged ? Object.fromEntries(Object.entries(created).map(([f, v]) => [f, nudge(v)])) : p.patch;
        const log: string[] = [];
        const id = await create(created, log);
        if (!id) return;
        const patched = await t.call('PATCH', `/v1/agents/${id}/spend-policy`, { key: t.keyOf('@acme'), body: patch, unchecked: true });
        log.push(`PATCH ${JSON.stringify(patch)} → ${patched.status} ${patched.text.slice(0, 300)}`);
        if (patched.status !== 200) return;
        const policies = memoryState(t).policies as Array<{ agent_account_id: string; fields: Record<string, number | string | undefined> }>;
        const held = policies.find((x) => x.agent_account_id === id)!.fields;
        for (const [f, v] of Object.entries(patch)) {
          expect(held[f] === undefined ? 'absent' : exact(held[f]!), `${f} held by the engine after:\n${log.join('\n')}`).toBe(exact(v));
        }
      }),
      runs(NUM_RUNS.policyLimits),
    );
  });
});
