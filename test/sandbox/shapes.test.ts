// The answer check every sandbox test runs through request() (helpers.ts): it must be able to
// fail, it must cover every route the sandbox serves, and odd requests still get the error body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccountRoutes } from '../../src/sandbox/handlers/accounts.js';
import { registerAgentAccountRoutes } from '../../src/sandbox/handlers/agent-accounts.js';
import { registerAgentRoutes } from '../../src/sandbox/handlers/agents.js';
import { registerControlRoutes } from '../../src/sandbox/handlers/control.js';
import { registerTransferRoutes } from '../../src/sandbox/handlers/transfers.js';
import { registerWebhookRoutes } from '../../src/sandbox/handlers/webhooks.js';
import { Routes } from '../../src/sandbox/http/context.js';
import { ANSWER_RULES, AnswerShapeError, checkAnswer, nullPaths, request, startSandbox, type TestSandbox } from './helpers.js';

const TRANSFER = {
  transfer_id: 'tr_abcdefghijklmnopqrstuvwx',
  status: 'pending',
  from: '@alice',
  to: '@acme',
  confidential: true,
  tx_hash: `0x${'ab'.repeat(32)}`,
  created_at: '2025-01-31T12:00:00.000Z',
  asset: 'USDG',
};
const check = (method: string, path: string, status: number, body: unknown) => () => checkAnswer(method, path, status, typeof body === 'string' ? body : JSON.stringify(body));

describe('the answer check can fail', () => {
  it('accepts a well-formed answer', () => {
    expect(check('GET', '/v1/transfers/tr_x', 200, TRANSFER)).not.toThrow();
    expect(check('GET', '/v1/transfers?limit=1', 200, { transfers: [TRANSFER], limit: 1, offset: 0, has_more: false })).not.toThrow();
    expect(check('GET', '/nope', 404, { error: { code: 'not_found', message: 'no such endpoint', request_id: 'req_1' } })).not.toThrow();
  });

  it('refuses a null anywhere, naming where', () => {
    expect(check('GET', '/v1/transfers/tr_x', 200, { ...TRANSFER, confirmed_at: null })).toThrow(AnswerShapeError);
    expect(check('GET', '/v1/transfers/tr_x', 200, { ...TRANSFER, confirmed_at: null })).toThrow(/null at \$\.confirmed_at/);
    expect(check('GET', '/v1/transfers', 200, { transfers: [{ ...TRANSFER, tx_hash: null }], limit: 1, offset: 0, has_more: false })).toThrow(/\$\.transfers\[0\]\.tx_hash/);
    expect(check('GET', '/nope', 404, { error: { code: 'not_found', message: 'x', request_id: 'req_1', reason: null } })).toThrow(/null/);
    expect(nullPaths({ a: [1, { b: null }], c: null })).toEqual(['$.a[1].b', '$.c']);
  });

  it('refuses a missing field, a wrong type, an unknown value and a broken rule', () => {
    const { tx_hash: _drop, ...noHash } = TRANSFER;
    expect(check('GET', '/v1/transfers/tr_x', 200, noHash)).toThrow(/does not match its schema/);
    expect(check('GET', '/v1/transfers/tr_x', 200, { ...TRANSFER, confidential: 'yes' })).toThrow(/confidential/);
    expect(check('GET', '/v1/transfers/tr_x', 200, { ...TRANSFER, status: 'settled' })).toThrow(/status/);
    expect(check('GET', '/v1/transfers/tr_x', 200, { ...TRANSFER, created_at: 'yesterday' })).toThrow(/created_at/);
    // A confirmed transfer without confirmed_at, and a pending one with it.
    expect(check('GET', '/v1/transfers/tr_x', 200, { ...TRANSFER, status: 'confirmed' })).toThrow(/confirmed_at/);
    expect(check('GET', '/v1/transfers/tr_x', 200, { ...TRANSFER, confirmed_at: TRANSFER.created_at })).toThrow(/confirmed_at/);
    // A list in another shape than the sandbox's.
    expect(check('GET', '/v1/transfers', 200, [TRANSFER])).toThrow(AnswerShapeError);
    expect(check('GET', '/v1/transfers', 200, { transfers: [TRANSFER] })).toThrow(/limit/);
  });

  it('refuses a field the schema does not declare (an amount would be caught here)', () => {
    expect(check('GET', '/v1/transfers/tr_x', 200, { ...TRANSFER, amount: '12.50' })).toThrow(/does not declare: \$\.amount/);
    expect(check('GET', '/_sandbox/fund', 200, { ok: true, handle: '@bob', asset: 'USDG', amount: '5' })).toThrow(AnswerShapeError); // no such GET route either
    expect(check('POST', '/_sandbox/fund', 200, { ok: true, handle: '@bob', asset: 'USDG', amount: '5' })).toThrow(/\$\.amount/);
  });

  it('refuses a bad error body, non-JSON, and a 2xx of a route without a schema', () => {
    expect(check('GET', '/nope', 404, { message: 'not found' })).toThrow(/error/);
    expect(check('GET', '/nope', 404, { error: { code: 'not_found', message: 'x' } })).toThrow(/request_id/);
    expect(check('GET', '/v1/accounts/me', 200, 'not json')).toThrow(/is not JSON/);
    expect(check('GET', '/v1/accounts/me', 200, '')).toThrow(/is not JSON/);
    expect(check('GET', '/v1/unknown', 200, {})).toThrow(/no answer schema/);
    expect(check('POST', '/v1/transfers', 200, TRANSFER)).toThrow(/no answer schema/); // 201 is the create status
  });
});

describe('the answer rules', () => {
  function registered(): Array<[string, string]> {
    const routes = new Routes();
    for (const register of [registerAccountRoutes, registerAgentAccountRoutes, registerAgentRoutes, registerControlRoutes, registerTransferRoutes, registerWebhookRoutes]) register(routes);
    // The router's tables are private; read them to list every route.
    const router = routes.router as unknown as { exact: Map<string, Map<string, unknown>>; patterns: Array<{ segments: string[]; methods: Map<string, unknown> }> };
    const out: Array<[string, string]> = [];
    for (const [path, methods] of router.exact) for (const m of methods.keys()) out.push([m, path]);
    for (const p of router.patterns) for (const m of p.methods.keys()) out.push([m, p.segments.join('/')]);
    return out.sort();
  }

  it('cover every route the sandbox serves, and nothing else', () => {
    const routes = registered();
    expect(routes.length).toBeGreaterThan(25);
    const ruled = [...new Set(ANSWER_RULES.map((r) => `${r.method} ${r.path}`))].sort();
    expect(ruled).toEqual(routes.map(([m, p]) => `${m} ${p}`).sort());
  });
});

describe('odd requests still get the one error body', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startSandbox();
  });
  afterAll(() => t.close());

  it.each([
    ['GET', '/', undefined, 404],
    ['GET', '//', undefined, 404],
    ['GET', '/v1/transfers/%E0%A4%A', 'key', 404],
    ['GET', '/v1/transfers/', 'key', 200],
    ['PUT', '/v1/transfers', 'key', 405],
    ['DELETE', '/_sandbox/health', undefined, 405],
    ['POST', '/v1/transfers', 'key', 400],
    ['POST', '/_sandbox/fund', undefined, 401],
    ['GET', '/v1/transfers?limit=1&limit=2', 'key', 400],
    ['GET', '/v1/agents/acct_x/spend-policy', 'key', 403],
    ['POST', '/v1/agents/acct_x/suspend', 'key', 403],
  ] as const)('%s %s → %i', async (method, path, key, status) => {
    // request() throws if the answer does not match its schema; here we only look at the status.
    const res = await t.call(method, path, { ...(key ? { key: t.keyOf('@alice') } : {}), ...(method === 'POST' && key ? { raw: '{"broken' } : {}) });
    expect(res.status, res.text).toBe(status);
  });

  it('413 and raw bytes that are not JSON', async () => {
    expect((await t.call('POST', '/v1/transfers', { key: t.keyOf('@alice'), raw: 'x'.repeat(70 * 1024) })).status).toBe(413);
    // A body that does not say it is JSON is not read as JSON (docs/sandbox.md: 415).
    expect((await t.call('POST', '/v1/webhooks', { key: t.keyOf('@alice'), raw: '\u0000\u0001', headers: { 'content-type': 'application/octet-stream' } })).status).toBe(415);
    expect((await t.call('POST', '/v1/webhooks', { key: t.keyOf('@alice'), raw: '\u0000\u0001' })).status).toBe(400);
    expect((await t.call('POST', '/_sandbox/clock/advance', { raw: 'ms=5', headers: { 'x-sandbox-admin-token': t.sandbox.adminToken } })).status).toBe(400);
  });

  it('request() can be told not to check (a test of something that is not a sandbox answer)', async () => {
    const head = await request(t.sandbox.url, 'HEAD', '/_sandbox/health', { unchecked: true });
    expect(head.text).toBe('');
  });
});
