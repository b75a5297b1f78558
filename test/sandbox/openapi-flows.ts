// Real flows through every route of an in-process sandbox, successes and every error a test can
// reach, for the OpenAPI conformance test (openapi-conformance.test.ts records each answer at
// the HTTP layer and holds it against the document). Each step checks it got the status it
// aimed at, so the flows keep covering what they mean to.
import { request as undiciRequest } from 'undici';
import { expect } from 'vitest';
import { buildProof } from '../../src/crypto/proof.js';
import { parseDecryptionKey } from '../../src/crypto/viewing-key.js';
import { rawHttp, request, wireBytes, type ReqOptions, type Res, type TestSandbox } from './helpers.js';

const MINUTE = 60_000;

/**
 * The sandbox's API as the flows call it: every answer unchecked here (the conformance test
 * checks them all against the document, and nothing else should fail first).
 */
function client(t: TestSandbox) {
  const call = (method: string, path: string, o: ReqOptions = {}) => request(t.sandbox.url, method, path, { ...o, unchecked: true });
  return {
    call,
    as: (h: string) => ({
      get: (path: string, o: ReqOptions = {}) => call('GET', path, { ...o, key: t.keyOf(h) }),
      post: (path: string, body?: unknown, o: ReqOptions = {}) => call('POST', path, { ...o, body, key: t.keyOf(h) }),
      send: (body: Record<string, unknown>, o: ReqOptions = {}) => call('POST', '/v1/transfers', { ...o, body, key: t.keyOf(h) }),
    }),
    admin: (method: string, path: string, body?: unknown, o: ReqOptions = {}) =>
      call(method, path, { ...o, body, headers: { 'x-sandbox-admin-token': t.sandbox.adminToken, ...o.headers } }),
  };
}

function expectAnswer(res: Res | { status: number; body: unknown }, status: number, code?: string): void {
  const got = { status: res.status, code: (res.body as { error?: { code?: string } } | undefined)?.error?.code };
  expect(got, JSON.stringify(res.body)).toEqual({ status, code });
}

/** GET with an optional JSON body (fetch refuses a body on GET; undici's request does not). */
async function balances(t: TestSandbox, handle: string, body?: unknown) {
  const res = await undiciRequest(`${t.sandbox.url}/v1/accounts/me/balances`, {
    method: 'GET',
    headers: { authorization: `Bearer ${t.keyOf(handle)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as { balances: Array<{ asset: string; version: number; ciphertext: string }> } };
}

export async function accountFlows(t: TestSandbox): Promise<void> {
  const c = client(t);
  expectAnswer(await c.as('@alice').get('/v1/accounts/me'), 200);
  const hidden = await balances(t, '@alice');
  expectAnswer(hidden, 200);
  const p = parseDecryptionKey(t.sandbox.seeded.find((s) => s.handle === '@alice')!.decryptionKey!);
  if (!p.ok) throw new Error(p.rule);
  const proof = buildProof(p.value.keyObject, p.value.publicKey, hidden.body.balances.map((e) => ({ asset: e.asset, version: e.version, ciphertext: e.ciphertext })));
  expectAnswer(await balances(t, '@alice', { decryption_proof: proof }), 200);
  expectAnswer(await balances(t, '@alice', { decryption_proof: 'not a proof' }), 422, 'decryption_proof_invalid');
  expectAnswer(await balances(t, '@alice', [1, 2]), 400, 'invalid_request');
  expectAnswer(await balances(t, '@bob'), 403, 'kyc_required');
}

export async function transferFlows(t: TestSandbox): Promise<void> {
  const c = client(t);
  const alice = c.as('@alice');
  const first = await alice.send({ to: '@bob', amount: '1.25', memo: 'lunch' }, { headers: { 'idempotency-key': 'conformance-1' } });
  expectAnswer(first, 201);
  const replay = await alice.send({ to: '@bob', amount: '1.25', memo: 'lunch' }, { headers: { 'idempotency-key': 'conformance-1' } });
  expectAnswer(replay, 201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expectAnswer(await alice.send({ to: '@bob', amount: '2' }, { headers: { 'idempotency-key': 'conformance-1' } }), 409, 'idempotency_key_reused');
  expectAnswer(await alice.send({ to: '@bob', amount: '2' }, { headers: { 'idempotency-key': 'has space' } }), 400, 'invalid_request');
  expectAnswer(await alice.send({ to: '@acme', amount: '2', confidential: false, asset: 'USDC' }), 201);
  expectAnswer(await alice.send({ to: '@oldwallet', amount: '1' }), 422, 'recipient_not_confidential_ready');
  expectAnswer(await alice.send({ to: '@oldwallet', amount: '1', confidential: false }), 201);
  expectAnswer(await alice.send({ to: '@nobody', amount: '1' }), 404, 'recipient_not_found');
  expectAnswer(await alice.send({ to: '@bob', amount: '1000000' }), 402, 'insufficient_balance');
  expectAnswer(await alice.send({ to: '@bob', amount: 1 }), 400, 'invalid_request');
  expectAnswer(await c.as('@bob').send({ to: '@alice', amount: '1' }), 403, 'kyc_required');

  for (const q of ['?limit=1', '?limit=1&offset=1', '?status=pending', '?from=2000-01-01T00:00:00Z&to=2100-01-01', '']) {
    expectAnswer(await alice.get(`/v1/transfers${q}`), 200);
  }
  for (const q of ['?limit=0', '?limit=101', '?status=bogus', '?from=yesterday', '?offset=-1', '?limit=1&limit=2']) {
    expectAnswer(await alice.get(`/v1/transfers${q}`), 400, 'invalid_request');
  }
  const id = (first.body as { transfer_id: string }).transfer_id;
  expectAnswer(await alice.get(`/v1/transfers/${id}`), 200);
  expectAnswer(await c.as('@bob').get(`/v1/transfers/${id}`), 200);
  expectAnswer(await c.as('@acme').get(`/v1/transfers/${id}`), 404, 'transfer_not_found');
  await t.sandbox.advance(2_000); // settles: confirmed_at appears
  expectAnswer(await alice.get(`/v1/transfers/${id}`), 200);
  expectAnswer(await c.as('@bob').get('/v1/transfers?status=confirmed'), 200);
}

/** The pipeline's own answers: authentication, bodies, methods, unknown paths, Host and Origin. */
export async function pipelineFlows(t: TestSandbox): Promise<void> {
  const c = client(t);
  expectAnswer(await c.call('GET', '/v1/accounts/me'), 401, 'unauthorized');
  expectAnswer(await c.call('GET', '/v1/accounts/me', { headers: { authorization: `Bearer svc_live_${'a'.repeat(32)}` } }), 401, 'unauthorized');
  expectAnswer(await c.call('GET', '/v1/accounts/me', { key: 'svc_test_unknown' }), 401, 'unauthorized');
  const key = t.keyOf('@alice');
  expectAnswer(await c.call('POST', '/v1/transfers', { key, raw: '{not json' }), 400, 'invalid_request');
  expectAnswer(await c.call('POST', '/v1/transfers', { key, raw: 'to=@bob', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
  expectAnswer(await c.call('POST', '/v1/webhooks', { key, raw: JSON.stringify({ url: 'x'.repeat(70 * 1024) }) }), 413, 'payload_too_large');
  expectAnswer(await c.call('DELETE', '/v1/transfers', { key }), 405, 'method_not_allowed');
  expectAnswer(await c.call('PUT', '/v1/webhooks/wh_x', { key }), 405, 'method_not_allowed');
  const head = await c.call('HEAD', '/v1/accounts/me', { key });
  expect(head.status).toBe(405);
  expectAnswer(await c.call('GET', '/v1/nothing-here', { key }), 404, 'not_found');
  expectAnswer(await c.call('GET', '/_sandbox/reset'), 405, 'method_not_allowed');
  expectAnswer(await c.call('POST', '/_sandbox/reset'), 401, 'unauthorized');
  const raw = async (headers: Array<[string, string]>, defaults = true) =>
    rawHttp(t.sandbox.url, wireBytes({ method: 'GET', target: '/v1/accounts/me', headers: [...(defaults ? [] : [['Connection', 'close'] as [string, string]]), ...headers], defaults }));
  expect((await raw([['Origin', 'https://pages.example']])).status).toBe(403);
  expect((await raw([['Host', 'rebound.example']], false)).status).toBe(421);
  expect((await raw([], false)).status).toBe(400);
}

export async function agentFlows(t: TestSandbox): Promise<void> {
  const c = client(t);
  const alice = c.as('@alice');
  const made = await alice.post('/v1/accounts/me/agents', { name: 'bot', spend_policy: { per_transaction_limit_usdc: 100, hitl_threshold_usdc: 10, allowed_recipients: ['@acme', '@bob'] } });
  expectAnswer(made, 201);
  const bot = made.body as { account_id: string; handle: string };
  const botKey = await c.admin('POST', '/_sandbox/keys', { account: bot.handle, name: 'agent' });
  expectAnswer(botKey, 201);
  expectAnswer(await c.admin('POST', '/_sandbox/fund', { handle: bot.handle, amount: '60' }), 200);
  const asBot = { key: (botKey.body as { key: string }).key };
  const policyPath = `/v1/agents/${bot.account_id}/spend-policy`;
  expectAnswer(await alice.post('/v1/accounts/me/agents', { name: 'bot', spend_policy: {} }), 409, 'agent_name_taken');
  expectAnswer(await alice.post('/v1/accounts/me/agents', { name: 'Not A Name', spend_policy: {} }), 400, 'invalid_request');
  expectAnswer(await alice.post('/v1/accounts/me/agents', { name: 'bot2', spend_policy: { daily_limit_usdc: -1 } }), 400, 'invalid_policy');
  expectAnswer(await c.call('POST', '/v1/accounts/me/agents', { ...asBot, body: { name: 'sub', spend_policy: {} } }), 403, 'forbidden');
  expectAnswer(await alice.get('/v1/accounts/me/agents'), 200);
  expectAnswer(await c.call('GET', '/v1/accounts/me/agents', asBot), 200);

  expectAnswer(await alice.get(policyPath), 200);
  expectAnswer(await c.call('GET', policyPath, asBot), 200);
  expectAnswer(await c.as('@acme').get(policyPath), 403, 'not_agent_owner');
  expectAnswer(await c.call('PATCH', policyPath, { key: t.keyOf('@alice'), body: { active_hours: null, daily_limit_usdc: 500 } }), 200);
  expectAnswer(await c.call('PATCH', policyPath, { key: t.keyOf('@alice'), body: { active_hours: '25:00-26:00' } }), 400, 'invalid_policy');
  const agentPatch = await c.call('PATCH', policyPath, { ...asBot, body: { daily_limit_usdc: 1 } });
  expect(agentPatch.status).toBe(403); // forbidden today; not_agent_owner once an agent's patch answers as the spec says
  expectAnswer(await c.call('PATCH', `/v1/agents/acct_nobody/spend-policy`, { key: t.keyOf('@alice'), body: {} }), 403, 'not_agent_owner');

  expectAnswer(await alice.get(`/v1/agents/${bot.account_id}/balances`), 200);
  expectAnswer(await alice.get(`/v1/agents/${bot.account_id}/transfers?limit=5`), 200);
  expectAnswer(await c.as('@acme').get(`/v1/agents/${bot.account_id}/balances`), 403, 'not_agent_owner');
  expectAnswer(await alice.get(`/v1/agents/${bot.account_id}/transfers?limit=0`), 400, 'invalid_request');

  const send = (amount: string, to = '@acme') => c.call('POST', '/v1/transfers', { ...asBot, body: { to, amount, memo: 'parts' } });
  expectAnswer(await send('5'), 201);
  const held = async (amount: string) => {
    const r = await send(amount);
    expectAnswer(r, 202);
    return (r.body as { transaction_id: string }).transaction_id;
  };
  const [h1, h2, h3, h4] = [await held('50'), await held('20'), await held('30'), await held('40')];
  const violation = await send('500');
  expectAnswer(violation, 403, 'policy_violation');
  expect((violation.body as { error: { reason: string } }).error.reason).toBe('per_transaction_limit');

  expectAnswer(await alice.post(`/v1/agents/${bot.account_id}/suspend`), 200);
  expectAnswer(await send('1'), 403, 'forbidden'); // reason agent_suspended
  expectAnswer(await c.call('POST', `/v1/agents/${bot.account_id}/resume`, asBot), 403, 'forbidden');
  expectAnswer(await alice.post(`/v1/agents/${bot.account_id}/resume`, undefined, { headers: { 'idempotency-key': 'resume-1' } }), 200);
  expectAnswer(await alice.post(`/v1/agents/${bot.account_id}/resume`, undefined, { headers: { 'idempotency-key': 'resume-1' } }), 200);
  expectAnswer(await c.as('@acme').post(`/v1/agents/${bot.account_id}/suspend`), 403, 'not_agent_owner');

  expectAnswer(await alice.get('/v1/agents/transactions/pending'), 200);
  for (const q of ['', '?status=pending_approval', '?limit=2&offset=1']) expectAnswer(await alice.get(`/v1/agents/transactions${q}`), 200);
  expectAnswer(await c.call('GET', '/v1/agents/transactions', asBot), 200);
  expectAnswer(await alice.get('/v1/agents/transactions?status=held'), 400, 'invalid_request');
  expectAnswer(await alice.get(`/v1/agents/transactions/${h1}`), 200);
  expectAnswer(await c.call('GET', `/v1/agents/transactions/${h1}`, asBot), 200);
  expectAnswer(await c.as('@acme').get(`/v1/agents/transactions/${h1}`), 404, 'transaction_not_found');

  const approve = (id: string, key = t.keyOf('@alice'), o: { headers?: Record<string, string> } = {}) => c.call('POST', `/v1/agents/transactions/${id}/approve`, { key, ...o });
  expectAnswer(await approve(h1, asBot.key), 403, 'forbidden');
  expectAnswer(await approve(h1, t.keyOf('@alice'), { headers: { 'idempotency-key': 'approve-h1' } }), 200);
  expectAnswer(await approve(h1, t.keyOf('@alice'), { headers: { 'idempotency-key': 'approve-h1' } }), 200);
  expectAnswer(await approve(h1), 409, 'transaction_already_decided');
  expectAnswer(await approve('txn_nobody'), 404, 'transaction_not_found');
  expectAnswer(await approve(h3), 402, 'insufficient_balance'); // 60 funded, 5 + 50 spent
  expectAnswer(await alice.post(`/v1/agents/transactions/${h2}/reject`, { reason: '' }), 400, 'invalid_request');
  expectAnswer(await alice.post(`/v1/agents/transactions/${h2}/reject`, { reason: 'not this month' }), 200);
  expectAnswer(await alice.post(`/v1/agents/transactions/${h2}/reject`), 409, 'transaction_already_decided');
  // A quorum (DESIGN.md "Quorum"): an approval short of it answers the transaction still pending;
  // the same key again is refused.
  expectAnswer(await c.call('PATCH', policyPath, { key: t.keyOf('@alice'), body: { approvals_required: 2 } }), 200);
  const h5 = await held('15');
  expectAnswer(await approve(h5), 200);
  expectAnswer(await approve(h5), 409, 'already_approved');
  await t.sandbox.advance(16 * MINUTE);
  expectAnswer(await approve(h4), 409, 'transaction_expired');
  expectAnswer(await alice.post(`/v1/agents/transactions/${h3}/reject`), 409, 'transaction_expired');
  expectAnswer(await alice.get(`/v1/agents/transactions/${h4}`), 200);
  expectAnswer(await alice.get('/v1/agents/transactions?status=expired'), 200);
  expectAnswer(await alice.get(`/v1/agents/${bot.account_id}/transfers`), 200);
}

export async function webhookFlows(t: TestSandbox, receiverUrl: string, delivered: () => Promise<void>): Promise<void> {
  const c = client(t);
  const alice = c.as('@alice');
  const key = { key: t.keyOf('@alice') };
  const body = { url: receiverUrl, events: ['transfer.initiated', 'transfer.confirmed', 'agent.transaction.pending_approval'] };
  const created = await alice.post('/v1/webhooks', body, { headers: { 'idempotency-key': 'hook-1' } });
  expectAnswer(created, 201);
  expectAnswer(await alice.post('/v1/webhooks', body, { headers: { 'idempotency-key': 'hook-1' } }), 201);
  expectAnswer(await alice.post('/v1/webhooks', { url: 'ftp://hooks.example', events: ['transfer.initiated'] }), 400, 'invalid_request');
  expectAnswer(await alice.post('/v1/webhooks', { url: receiverUrl, events: [] }), 400, 'invalid_request');
  const id = (created.body as { webhook_id: string }).webhook_id;
  expectAnswer(await alice.get('/v1/webhooks'), 200);
  expectAnswer(await alice.get(`/v1/webhooks/${id}`), 200);
  expectAnswer(await c.as('@acme').get(`/v1/webhooks/${id}`), 404, 'webhook_not_found');

  const trigger = await c.admin('POST', '/_sandbox/trigger', { event: 'transfer.initiated', account: '@alice' });
  expectAnswer(trigger, 202);
  expectAnswer(await c.admin('POST', '/_sandbox/trigger', { event: 'agent.transaction.pending_approval' }), 202);
  expectAnswer(await c.admin('POST', '/_sandbox/trigger'), 400, 'invalid_request');
  expectAnswer(await c.admin('POST', '/_sandbox/trigger', { event: 'transfer.initiated', account: '@nobody' }), 404, 'account_not_found');
  await alice.send({ to: '@bob', amount: '0.5' });
  await delivered(); // the first attempts: the receiver fails the first one
  await t.sandbox.advance(10_000); // its retry, and the transfer's settlement
  await delivered();
  expectAnswer(await alice.get(`/v1/webhooks/${id}/deliveries`), 200);
  expectAnswer(await alice.get(`/v1/webhooks/${id}/deliveries?limit=1`), 200);
  expectAnswer(await alice.get(`/v1/webhooks/${id}/deliveries?limit=0`), 400, 'invalid_request');
  expectAnswer(await c.as('@acme').get(`/v1/webhooks/${id}/deliveries`), 404, 'webhook_not_found');

  const eventId = (trigger.body as { event_id: string }).event_id;
  const replayPath = `/v1/webhooks/${id}/replay/${eventId}`;
  expectAnswer(await c.call('POST', replayPath, { ...key, headers: { 'idempotency-key': 'replay-1' } }), 202);
  expectAnswer(await c.call('POST', replayPath, { ...key, headers: { 'idempotency-key': 'replay-1' } }), 202);
  expectAnswer(await c.call('POST', `/v1/webhooks/${id}/replay/evt_nobody`, key), 404, 'event_not_found');
  expectAnswer(await c.call('POST', `/v1/webhooks/wh_nobody/replay/${eventId}`, key), 404, 'webhook_not_found');
  await delivered();

  expectAnswer(await c.call('DELETE', `/v1/webhooks/${id}`, key), 200);
  expectAnswer(await c.call('DELETE', `/v1/webhooks/${id}`, key), 404, 'webhook_not_found');
}

export async function controlFlows(t: TestSandbox): Promise<void> {
  const c = client(t);
  expectAnswer(await c.call('GET', '/_sandbox/health'), 200);
  expectAnswer(await c.admin('GET', '/_sandbox/clock'), 200);
  expectAnswer(await c.admin('POST', '/_sandbox/clock/advance', { ms: 1_000 }), 200);
  expectAnswer(await c.admin('POST', '/_sandbox/clock/advance', { ms: -1 }), 400, 'invalid_request');
  expectAnswer(await c.admin('POST', '/_sandbox/clock/advance', {}), 400, 'invalid_request');
  const created = await c.admin('POST', '/_sandbox/keys', { account: '@acme', name: 'conformance' });
  expectAnswer(created, 201);
  expectAnswer(await c.admin('POST', '/_sandbox/keys', { account: '@nobody' }), 404, 'account_not_found');
  expectAnswer(await c.admin('POST', '/_sandbox/keys', { account: 'acme' }), 400, 'invalid_request');
  expectAnswer(await c.admin('GET', '/_sandbox/keys'), 200);
  expectAnswer(await c.admin('GET', '/_sandbox/keys?account=@acme'), 200);
  expectAnswer(await c.admin('GET', '/_sandbox/keys?account=@nobody'), 404, 'account_not_found');
  expectAnswer(await c.admin('POST', `/_sandbox/keys/${(created.body as { key_id: string }).key_id}/revoke`), 200);
  expectAnswer(await c.call('GET', '/v1/accounts/me', { key: (created.body as { key: string }).key }), 401, 'unauthorized');
  expectAnswer(await c.admin('POST', '/_sandbox/keys/key_nobody/revoke'), 404, 'key_not_found');
  const fund = () => c.admin('POST', '/_sandbox/fund', { handle: '@acme', amount: '10' }, { headers: { 'idempotency-key': 'fund-1' } });
  expectAnswer(await fund(), 200);
  expectAnswer(await fund(), 200);
  expectAnswer(await c.admin('POST', '/_sandbox/fund', { handle: '@nobody', amount: '10' }), 404, 'account_not_found');
  expectAnswer(await c.admin('POST', '/_sandbox/fund', { handle: '@acme', amount: '-3' }), 400, 'invalid_request');
  expectAnswer(await c.admin('GET', '/_sandbox/export'), 200);
  expectAnswer(await c.call('GET', '/openapi.json'), 200);
  const reset = await c.admin('POST', '/_sandbox/reset');
  expectAnswer(reset, 200);
  t.adopt((reset.body as { seeded: Array<{ handle: string; api_key?: string }> }).seeded);
  expectAnswer(await c.as('@alice').get('/v1/accounts/me'), 200);
}
