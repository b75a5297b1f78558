// Agents, spend policies and the approval queue over HTTP against an in-process sandbox whose
// clock is frozen (time moves only through advance()): every endpoint, rule and error code.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contexts, decrypt } from '../../src/crypto/ciphertext.js';
import { parseDecryptionKey } from '../../src/crypto/viewing-key.js';
import type { SandboxEvent } from '../../src/sandbox/store/events.js';
import { checkAnswer, dbBytes, dbRecords, startSandbox, units, type ReqOptions, type TestSandbox, expectApiError } from './helpers.js';

const DEAD = '0x000000000000000000000000000000000000dEaD';
const WINDOW = 15 * 60_000;
const HOUR = 3_600_000;

/** Moves the frozen clock to 06:00 UTC of the next day, so no test crosses midnight by accident. */
async function toMorning(t: TestSandbox): Promise<void> {
  const now = t.world.now();
  const nextMidnight = Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000;
  await t.sandbox.advance(nextMidnight + 6 * HOUR - now);
}

interface Agent {
  account_id: string;
  handle: string;
  key: string;
}

/** Creates an agent under `owner`, gives it an API key and (optionally) funds it. */
async function makeAgent(t: TestSandbox, policy: Record<string, unknown>, o: { owner?: string; name?: string; fund?: string } = {}): Promise<Agent> {
  const owner = o.owner ?? '@alice';
  const res = await t.as(owner).post('/v1/accounts/me/agents', { name: o.name ?? 'bot', spend_policy: policy });
  expect(res.status, res.text).toBe(201);
  const key = await t.admin('POST', '/_sandbox/keys', { account: res.body.handle, name: 'agent' });
  expect(key.status, key.text).toBe(201);
  if (o.fund) expect((await t.admin('POST', '/_sandbox/fund', { handle: res.body.handle, amount: o.fund })).status).toBe(200);
  return { account_id: res.body.account_id, handle: res.body.handle, key: key.body.key };
}

const sendAs = (t: TestSandbox, a: Agent, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.call('POST', '/v1/transfers', { key: a.key, body, headers });
const policyPath = (id: string) => `/v1/agents/${id}/spend-policy`;
const patchAs = (who: string, id: string, body: unknown, o: ReqOptions = {}) =>
  t.call('PATCH', policyPath(id), { ...o, key: t.keyOf(who), ...(body === undefined ? {} : { body }) });

/** Alice's decryption key, when the sandbox provisions viewing keys. */
function aliceKey(t: TestSandbox) {
  const dk = t.sandbox.seeded.find((s) => s.handle === '@alice')?.decryptionKey;
  if (!dk) return undefined;
  const parsed = parseDecryptionKey(dk);
  if (!parsed.ok) throw new Error(parsed.rule);
  return parsed.value;
}

function recordEvents(t: TestSandbox) {
  const events: SandboxEvent[] = [];
  for (const type of ['agent.transaction.pending_approval', 'agent.transaction.approved', 'agent.transaction.rejected', 'agent.policy.updated'] as const) {
    t.world.store.on(type, (e) => events.push(e));
  }
  return events;
}

let t: TestSandbox;
beforeEach(async () => {
  t = await startSandbox({ blockTimeMs: 1500 });
  await toMorning(t);
});
afterEach(async () => {
  await t.close();
});

describe('POST /v1/accounts/me/agents', () => {
  it('creates an agent: 201 with its id, handle under the owner, chain address, status and policy id', async () => {
    const res = await t.as('@alice').post('/v1/accounts/me/agents', { name: 'payroll-bot', spend_policy: { daily_limit_usdc: 500, assets: ['usdg'] } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ handle: '@alice/payroll-bot', type: 'agent', status: 'active' });
    expect(res.body.account_id).toMatch(/^acct_[A-Za-z0-9]{20}$/);
    expect(res.body.public_key).toMatch(/^0x[0-9a-f]{40}$/);
    expect(res.body.spend_policy_id).toMatch(/^pol_[A-Za-z0-9]{20}$/);
    const account = t.world.store.account(res.body.account_id)!;
    expect(account).toMatchObject({ type: 'agent', parent_account_id: t.accountId('@alice'), kyc_status: 'verified', confidential_ready: true });
    // The agent's decryption key is shown once, when the sandbox gives accounts viewing keys.
    if (account.viewing_public_key) expect(res.body.decryption_key).toMatch(/^svc_dk_test_/);
    else expect(res.body.decryption_key).toBeUndefined();

    // Its own key authenticates as the agent.
    const key = await t.admin('POST', '/_sandbox/keys', { account: '@alice/payroll-bot' });
    expect(key.status).toBe(201);
    const me = await t.call('GET', '/v1/accounts/me', { key: key.body.key });
    expect(me.body).toMatchObject({ account_id: res.body.account_id, handle: '@alice/payroll-bot', type: 'agent' });
  });

  it('a taken name is 409 agent_name_taken; another owner may use the same name', async () => {
    await makeAgent(t, {});
    expectApiError(await t.as('@alice').post('/v1/accounts/me/agents', { name: 'bot', spend_policy: {} }), 409, 'agent_name_taken');
    const acme = await t.as('@acme').post('/v1/accounts/me/agents', { name: 'bot', spend_policy: {} });
    expect(acme.status).toBe(201);
    expect(acme.body.handle).toBe('@acme/bot');
  });

  it.each([
    [{ spend_policy: {} }, 'name is required'],
    [{ name: 7, spend_policy: {} }, 'name must be a string'],
    [{ name: '', spend_policy: {} }, 'name must be 1 to 32'],
    [{ name: 'Bot', spend_policy: {} }, 'name must be 1 to 32'],
    [{ name: '-bot', spend_policy: {} }, 'name must be 1 to 32'],
    [{ name: 'a.b', spend_policy: {} }, 'name must be 1 to 32'],
    [{ name: 'x'.repeat(33), spend_policy: {} }, 'name must be 1 to 32'],
    [{ name: 'bot' }, 'spend_policy is required'],
  ])('400 invalid_request for %j', async (body, message) => {
    const res = await t.as('@alice').post('/v1/accounts/me/agents', body);
    expectApiError(res, 400, 'invalid_request');
    expect(res.body.error.message).toContain(message);
  });

  it.each([
    [{ daily_limit_usdc: -1 }, 'daily_limit_usdc', 'must not be negative'],
    [{ per_transaction_limit_usdc: 'ten' }, 'per_transaction_limit_usdc', 'non-negative decimal'],
    [{ hitl_threshold_usdc: 1.1234567 }, 'hitl_threshold_usdc', 'at most 6 decimal'],
    [{ active_hours: '9-17' }, 'active_hours', 'HH:MM-HH:MM'],
    [{ active_hours: '09:00-09:00' }, 'active_hours', 'same minute'],
    [{ allowed_recipients: ['a*b'] }, 'allowed_recipients[0]', 'wildcard'],
    [{ allowed_recipients: '@acme' }, 'allowed_recipients', 'array'],
    [{ assets: ['EUR'] }, 'assets[0]', 'must be one of'],
    [{ weekly_limit_usdc: 5 }, 'weekly_limit_usdc', 'not a spend policy field'],
  ])('400 invalid_policy naming the field for %j', async (policy, fieldName, rule) => {
    const res = await t.as('@alice').post('/v1/accounts/me/agents', { name: 'bot', spend_policy: policy });
    expectApiError(res, 400, 'invalid_policy');
    expect(res.body.error.field).toBe(fieldName);
    expect(res.body.error.message).toContain(fieldName);
    expect(res.body.error.message).toContain(rule);
    expect(t.world.store.accountByHandle('@alice/bot')).toBeUndefined();
  });

  it('spend_policy that is not an object is 400 invalid_policy', async () => {
    const res = await t.as('@alice').post('/v1/accounts/me/agents', { name: 'bot', spend_policy: [1] });
    expectApiError(res, 400, 'invalid_policy');
    expect(res.body.error.field).toBe('spend_policy');
  });

  it("an agent's key cannot create agents (403 forbidden); no key is 401", async () => {
    const a = await makeAgent(t, {});
    expectApiError(await t.call('POST', '/v1/accounts/me/agents', { key: a.key, body: { name: 'sub', spend_policy: {} } }), 403, 'forbidden');
    expectApiError(await t.call('POST', '/v1/accounts/me/agents', { body: { name: 'sub', spend_policy: {} } }), 401, 'unauthorized');
  });

  it('honours Idempotency-Key: the same request replays the first answer and creates one agent', async () => {
    const body = { name: 'bot', spend_policy: { daily_limit_usdc: 5 } };
    const first = await t.as('@alice').post('/v1/accounts/me/agents', body, { headers: { 'idempotency-key': 'create-bot-1' } });
    const again = await t.as('@alice').post('/v1/accounts/me/agents', body, { headers: { 'idempotency-key': 'create-bot-1' } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.account_id).toBe(first.body.account_id);
    expect(t.world.store.agentsOf(t.accountId('@alice'))).toHaveLength(1);
  });
});

describe('GET /v1/accounts/me/agents', () => {
  it("lists the caller's agents only, in creation order; an agent's list is empty", async () => {
    const a = await makeAgent(t, {}, { name: 'one' });
    await makeAgent(t, {}, { name: 'two' });
    await makeAgent(t, {}, { owner: '@acme', name: 'ops' });
    const res = await t.as('@alice').get('/v1/accounts/me/agents');
    expect(res.status).toBe(200);
    expect(res.body.agents.map((x: { handle: string }) => x.handle)).toEqual(['@alice/one', '@alice/two']);
    expect(Object.keys(res.body.agents[0]).sort()).toEqual(['account_id', 'created_at', 'handle', 'public_key', 'spend_policy_id', 'status', 'type']);
    expect((await t.as('@acme').get('/v1/accounts/me/agents')).body.agents.map((x: { handle: string }) => x.handle)).toEqual(['@acme/ops']);
    expect((await t.as('@bob').get('/v1/accounts/me/agents')).body).toEqual({ agents: [] });
    expect((await t.call('GET', '/v1/accounts/me/agents', { key: a.key })).body).toEqual({ agents: [] });
  });
});

describe('GET and PATCH /v1/agents/{account_id}/spend-policy', () => {
  it('reads the policy: the six fields (limits as JSON numbers, omitted ones absent), policy_id, updated_at', async () => {
    const a = await makeAgent(t, { daily_limit_usdc: '500.25', per_transaction_limit_usdc: 100, allowed_recipients: ['@acme', '*.vendors.example'] });
    const res = await t.as('@alice').get(policyPath(a.account_id));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      policy_id: t.world.store.policy(a.account_id)!.policy_id,
      daily_limit_usdc: 500.25,
      per_transaction_limit_usdc: 100,
      allowed_recipients: ['@acme', '*.vendors.example'],
      updated_at: new Date(t.world.now()).toISOString(),
    });
    for (const unset of ['assets', 'active_hours', 'hitl_threshold_usdc']) expect(res.body).not.toHaveProperty(unset);
  });

  it("carries today's spend encrypted to the owner's viewing key (sandbox extension)", async () => {
    const key = aliceKey(t);
    const a = await makeAgent(t, {}, { fund: '100' });
    const read = async () => (await t.as('@alice').get(policyPath(a.account_id))).body;
    const before = await read();
    if (!key) {
      expect(before.daily_spent_ciphertext).toBeUndefined();
      return;
    }
    const day = new Date(t.world.now()).toISOString().slice(0, 10);
    expect(before.daily_spent_day).toBe(day);
    const open = (ct: string) => decrypt(key.secret, key.publicKey, ct, contexts.dailySpent(a.account_id, day, t.accountId('@alice')));
    expect(open(before.daily_spent_ciphertext)).toBe('0');
    expect((await sendAs(t, a, { to: '@acme', amount: '12.508163' })).status).toBe(201);
    expect(open((await read()).daily_spent_ciphertext)).toBe('12508163');
    expect(JSON.stringify(await read())).not.toMatch(/12\.508163|12508163/);
  });

  it('403 not_agent_owner for another account\'s agent, an unknown id and a non-agent account', async () => {
    const a = await makeAgent(t, {});
    expectApiError(await t.as('@acme').get(policyPath(a.account_id)), 403, 'not_agent_owner');
    expectApiError(await patchAs('@acme', a.account_id, { daily_limit_usdc: 1 }), 403, 'not_agent_owner');
    expectApiError(await t.as('@alice').get(policyPath('acct_doesnotexist000000')), 403, 'not_agent_owner');
    expectApiError(await t.as('@alice').get(policyPath(t.accountId('@alice'))), 403, 'not_agent_owner');
    expectApiError(await patchAs('@alice', t.accountId('@acme'), { daily_limit_usdc: 1 }), 403, 'not_agent_owner');
    const other = await makeAgent(t, {}, { name: 'other' });
    expectApiError(await t.call('GET', policyPath(other.account_id), { key: a.key }), 403, 'not_agent_owner');
  });

  it('an agent may read its own policy but never change it (403 not_agent_owner, the spec\'s code for PATCH)', async () => {
    const a = await makeAgent(t, { per_transaction_limit_usdc: 10 });
    const own = await t.call('GET', policyPath(a.account_id), { key: a.key });
    expect(own.status).toBe(200);
    expect(own.body.per_transaction_limit_usdc).toBe(10);
    const patched = await t.call('PATCH', policyPath(a.account_id), { key: a.key, body: { per_transaction_limit_usdc: 1000 } });
    expectApiError(patched, 403, 'not_agent_owner');
    expect(patched.body.error.message).toMatch(/is an agent and does not own itself: an agent's key cannot change its own spend policy; use its owner's key/);
    expect(t.world.store.policy(a.account_id)!.fields.per_transaction_limit_usdc).toBe(10);
  });

  it('PATCH changes only the fields sent, null clears one, updated_at moves and agent.policy.updated fires', async () => {
    const events = recordEvents(t);
    const a = await makeAgent(t, { daily_limit_usdc: 500, per_transaction_limit_usdc: 100, active_hours: '08:00-18:00', assets: ['USDG'] });
    const created = (await t.as('@alice').get(policyPath(a.account_id))).body;
    await t.sandbox.advance(5_000);
    const res = await patchAs('@alice', a.account_id, { daily_limit_usdc: 750, active_hours: null, policy_id: 'ignored', updated_at: 'ignored' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      policy_id: created.policy_id,
      daily_limit_usdc: 750,
      per_transaction_limit_usdc: 100,
      assets: ['USDG'],
      updated_at: new Date(t.world.now()).toISOString(),
    });
    expect(res.body).not.toHaveProperty('active_hours');
    expect(res.body.updated_at).not.toBe(created.updated_at);
    const read = (await t.as('@alice').get(policyPath(a.account_id))).body;
    expect(read).toMatchObject({ daily_limit_usdc: 750 });
    expect(read).not.toHaveProperty('active_hours');
    expect(events).toEqual([{ type: 'agent.policy.updated', agent: t.world.store.account(a.account_id), policy_id: created.policy_id, at: t.world.now() }]);

    // A patch that changes nothing: 200, updated_at stays, no event.
    await t.sandbox.advance(5_000);
    const same = await patchAs('@alice', a.account_id, { daily_limit_usdc: 750 });
    expect(same.status).toBe(200);
    expect(same.body.updated_at).toBe(res.body.updated_at);
    expect(events).toHaveLength(1);
  });

  it('PATCH is a JSON merge patch: null removes a restriction (then omitted on read), an absent field is unchanged', async () => {
    const events = recordEvents(t);
    const full = {
      daily_limit_usdc: 500,
      per_transaction_limit_usdc: 100,
      allowed_recipients: ['@acme'],
      assets: ['USDG'],
      active_hours: '05:00-23:00', // the tests run at 06:00 UTC
      hitl_threshold_usdc: 50,
    };
    const a = await makeAgent(t, full, { fund: '1000' });
    const read = async () => (await t.as('@alice').get(policyPath(a.account_id))).body;
    const fieldsOf = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([k]) => k in full));
    expect(fieldsOf(await read())).toEqual(full);

    const res = await patchAs('@alice', a.account_id, { daily_limit_usdc: null, allowed_recipients: null });
    expect(res.status, res.text).toBe(200);
    const { daily_limit_usdc: _d, allowed_recipients: _r, ...rest } = full;
    expect(fieldsOf(res.body)).toEqual(rest);
    expect(fieldsOf(await read())).toEqual(rest);
    expect(await read()).not.toHaveProperty('daily_limit_usdc');
    expect(await read()).not.toHaveProperty('allowed_recipients');
    // The restriction is gone: a recipient outside the old list goes through now.
    expect((await sendAs(t, a, { to: '@bob', amount: '1' })).status).toBe(201);

    // An empty patch, and null on a field already unset, change nothing (no event, same updated_at).
    const before = await read();
    await t.sandbox.advance(1000);
    expect((await patchAs('@alice', a.account_id, {})).body.updated_at).toBe(before.updated_at);
    expect((await patchAs('@alice', a.account_id, { daily_limit_usdc: null })).body.updated_at).toBe(before.updated_at);
    expect(events.filter((e) => e.type === 'agent.policy.updated')).toHaveLength(1);

    // Clearing everything leaves a policy with no restriction: only policy_id and updated_at.
    const cleared = await patchAs('@alice', a.account_id, { per_transaction_limit_usdc: null, assets: null, active_hours: null, hitl_threshold_usdc: null });
    expect(cleared.status).toBe(200);
    expect(Object.keys(cleared.body).filter((k) => !k.startsWith('daily_spent_')).sort()).toEqual(['policy_id', 'updated_at']);
    expect(fieldsOf(await read())).toEqual({});
    expect((await sendAs(t, a, { to: '@bob', amount: '600', asset: 'USDG' })).status).toBe(201); // no limit, no hold
  });

  it('PATCH validates like create (400 invalid_policy naming the field) and changes nothing then', async () => {
    const a = await makeAgent(t, { daily_limit_usdc: 500 });
    const bad = await patchAs('@alice', a.account_id, { daily_limit_usdc: 100, hitl_threshold_usdc: -5 });
    expectApiError(bad, 400, 'invalid_policy');
    expect(bad.body.error.field).toBe('hitl_threshold_usdc');
    expect((await t.as('@alice').get(policyPath(a.account_id))).body.daily_limit_usdc).toBe(500);
    expectApiError(await patchAs('@alice', a.account_id, undefined, { raw: '[1]' }), 400, 'invalid_request');
  });
});

describe('POST /v1/transfers with an agent key', () => {
  it('allowed: an ordinary transfer from the agent, reserved from its own balance', async () => {
    const a = await makeAgent(t, { per_transaction_limit_usdc: 100, hitl_threshold_usdc: 50 }, { fund: '100' });
    const res = await sendAs(t, a, { to: '@acme', amount: '50' }); // equal to the threshold: not held
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', from: '@alice/bot', to: '@acme' });
    expect(t.balance('@alice/bot')).toBe(units('50'));
    expect(t.balance('@alice')).toBe(units('1000'));
    await t.sandbox.advance(1500);
    expect(t.balance('@acme')).toBe(units('50050'));
  });

  it.each([
    ['asset_not_allowed', { assets: ['USDC'] }, { to: '@acme', amount: '1' }],
    ['recipient_not_allowed', { allowed_recipients: ['@acme', '*.vendors.example'] }, { to: '@bob', amount: '1' }],
    ['per_transaction_limit', { per_transaction_limit_usdc: 10 }, { to: '@acme', amount: '10.000001' }],
    ['daily_limit', { daily_limit_usdc: 5 }, { to: '@acme', amount: '6' }],
  ])('denied: 403 policy_violation with reason %s; nothing reserved', async (reason, policy, body) => {
    const a = await makeAgent(t, policy, { fund: '100' });
    const res = await sendAs(t, a, body);
    expectApiError(res, 403, 'policy_violation');
    expect(res.body.error.reason).toBe(reason);
    expect(res.body.error.message).toMatch(/spend policy of @alice\/bot denies/);
    expect(t.balance('@alice/bot')).toBe(units('100'));
    expect(t.world.store.countTransfers(a.account_id)).toBe(0);
  });

  it('denied outside active hours, allowed inside (UTC, sandbox clock)', async () => {
    // The clock is at 06:00 UTC.
    const a = await makeAgent(t, { active_hours: '09:00-17:00' }, { fund: '100' });
    const res = await sendAs(t, a, { to: '@acme', amount: '1' });
    expectApiError(res, 403, 'policy_violation');
    expect(res.body.error.reason).toBe('outside_active_hours');
    await t.sandbox.advance(3 * HOUR); // 09:00: start included
    expect((await sendAs(t, a, { to: '@acme', amount: '1' })).status).toBe(201);
  });

  it('recipient patterns: wildcard labels and addresses, case-insensitive', async () => {
    const a = await makeAgent(t, { allowed_recipients: ['@ACME', '0x1111111111111111111111111111111111111111'] }, { fund: '100' });
    expect((await sendAs(t, a, { to: '@acme', amount: '1' })).status).toBe(201);
    expect((await sendAs(t, a, { to: '0x1111111111111111111111111111111111111111', amount: '1' })).status).toBe(201);
    expect((await sendAs(t, a, { to: '@alice', amount: '1' })).body.error.reason).toBe('recipient_not_allowed');
  });

  it('held above the threshold: 202 pending_approval, no transfer, nothing reserved, event fired, no amount', async () => {
    const events = recordEvents(t);
    const a = await makeAgent(t, { hitl_threshold_usdc: 50.738215 }, { fund: '100' });
    const res = await sendAs(t, a, { to: '@acme', amount: '50.738216', memo: 'invoice 42' }); // one minor unit above
    expect(res.status, res.text).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['agent', 'approvals', 'approvals_required', 'asset', 'expires_at', 'requested_at', 'status', 'to', 'transaction_id']);
    const now = t.world.now();
    expect(res.body).toMatchObject({
      status: 'pending_approval',
      agent: '@alice/bot',
      to: '@acme',
      asset: 'USDG',
      requested_at: new Date(now).toISOString(),
      expires_at: new Date(now + WINDOW).toISOString(),
      approvals_required: 1,
      approvals: [],
    });
    expect(res.body.transaction_id).toMatch(/^txn_[A-Za-z0-9]{24}$/);
    expect(res.text).not.toMatch(/50\.738216|50738216|invoice/);
    expect(t.balance('@alice/bot')).toBe(units('100'));
    expect(t.world.store.countTransfers(a.account_id)).toBe(0);
    const held = t.world.store.heldTransaction(res.body.transaction_id)!;
    expect(held).toMatchObject({ status: 'pending_approval', agent_account_id: a.account_id, owner_account_id: t.accountId('@alice') });
    expect(JSON.stringify(held)).not.toMatch(/50\.738216|50738216|invoice/);
    expect(events.map((e) => e.type)).toEqual(['agent.transaction.pending_approval']);
    expect(events[0]).toMatchObject({ held: { transaction_id: res.body.transaction_id }, at: now });
  });

  it('a held answer is replayed for the same Idempotency-Key (one held transaction)', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 1 }, { fund: '100' });
    const first = await sendAs(t, a, { to: '@acme', amount: '5' }, { 'idempotency-key': 'k-1' });
    const again = await sendAs(t, a, { to: '@acme', amount: '5' }, { 'idempotency-key': 'k-1' });
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body.transaction_id).toBe(first.body.transaction_id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect([...t.world.store.heldTransactions()]).toHaveLength(1);
    expectApiError(await sendAs(t, a, { to: '@acme', amount: '6' }, { 'idempotency-key': 'k-1' }), 409, 'idempotency_key_reused');
  });

  it('a policy change applies to the very next attempt', async () => {
    const a = await makeAgent(t, { per_transaction_limit_usdc: 10 }, { fund: '100' });
    expect((await sendAs(t, a, { to: '@acme', amount: '20' })).body.error.reason).toBe('per_transaction_limit');
    expect((await patchAs('@alice', a.account_id, { per_transaction_limit_usdc: 50 })).status).toBe(200);
    expect((await sendAs(t, a, { to: '@acme', amount: '20' })).status).toBe(201);
    expect((await patchAs('@alice', a.account_id, { hitl_threshold_usdc: 5 })).status).toBe(200);
    expect((await sendAs(t, a, { to: '@acme', amount: '20' })).status).toBe(202);
    expect((await patchAs('@alice', a.account_id, { allowed_recipients: ['@bob'] })).status).toBe(200);
    expect((await sendAs(t, a, { to: '@acme', amount: '1' })).body.error.reason).toBe('recipient_not_allowed');
  });

  it('the daily limit counts settled and pending transfers, not failed, held or rejected ones; an approved one counts', async () => {
    const a = await makeAgent(t, { daily_limit_usdc: 100, hitl_threshold_usdc: 25 }, { fund: '500' });
    // A failed transfer moved nothing: it does not count.
    expect((await sendAs(t, a, { to: DEAD, amount: '20' })).status).toBe(201);
    expect((await sendAs(t, a, { to: '@acme', amount: '20' })).status).toBe(201);
    await t.sandbox.advance(1500); // dead one failed, the other confirmed
    expect((await sendAs(t, a, { to: '@acme', amount: '20' })).status).toBe(201); // pending: 40 so far
    const held = await sendAs(t, a, { to: '@acme', amount: '30' });
    expect(held.status).toBe(202);
    const rejected = await sendAs(t, a, { to: '@acme', amount: '30' });
    expect(rejected.status).toBe(202);
    expect((await t.as('@alice').post(`/v1/agents/transactions/${rejected.body.transaction_id}/reject`)).status).toBe(200);
    // 40 + 25 + 25 = 90 ≤ 100: held and rejected ones did not count.
    expect((await sendAs(t, a, { to: '@acme', amount: '25' })).status).toBe(201);
    expect((await sendAs(t, a, { to: '@acme', amount: '25' })).status).toBe(201);
    const over = await sendAs(t, a, { to: '@acme', amount: '10.000001' });
    expectApiError(over, 403, 'policy_violation');
    expect(over.body.error.reason).toBe('daily_limit');
    expect(over.body.error.message).toContain('10.00 left today');
    expect((await sendAs(t, a, { to: '@acme', amount: '10' })).status).toBe(201); // exactly 100
    // Approving the held one (the human decides; the policy is not evaluated again) counts it.
    expect((await t.as('@alice').post(`/v1/agents/transactions/${held.body.transaction_id}/approve`)).status).toBe(200);
    const key = aliceKey(t);
    if (key) {
      const body = (await t.as('@alice').get(policyPath(a.account_id))).body;
      const spent = decrypt(key.secret, key.publicKey, body.daily_spent_ciphertext, contexts.dailySpent(a.account_id, body.daily_spent_day, t.accountId('@alice')));
      expect(spent).toBe('130000000');
    }
    // A new UTC day starts from zero.
    await t.sandbox.advance(18 * HOUR);
    expect((await sendAs(t, a, { to: '@acme', amount: '20' })).status).toBe(201);
  });

  it('an allowed transfer above the agent balance is 402; an agent of an unverified owner is 403 kyc_required', async () => {
    const a = await makeAgent(t, {}, { fund: '5' });
    expectApiError(await sendAs(t, a, { to: '@acme', amount: '6' }), 402, 'insufficient_balance');
    const b = await makeAgent(t, {}, { owner: '@bob', fund: '5' });
    expectApiError(await sendAs(t, b, { to: '@acme', amount: '1' }), 403, 'kyc_required');
  });

  it('body validation still comes first (400), and an owner key is never policy-checked', async () => {
    const a = await makeAgent(t, { per_transaction_limit_usdc: 1 }, { fund: '5' });
    expectApiError(await sendAs(t, a, { to: '@acme', amount: 5 }), 400, 'invalid_request');
    expect((await t.as('@alice').send({ to: '@acme', amount: '500' })).status).toBe(201);
  });
});

describe('the approval queue', () => {
  async function holdOne(a: Agent, amount = '75', memo?: string): Promise<string> {
    const res = await sendAs(t, a, { to: '@acme', amount, ...(memo ? { memo } : {}) });
    expect(res.status, res.text).toBe(202);
    return res.body.transaction_id;
  }
  const approve = (id: string, who = '@alice') => t.as(who).post(`/v1/agents/transactions/${id}/approve`);
  const reject = (id: string, who = '@alice') => t.as(who).post(`/v1/agents/transactions/${id}/reject`);

  it("GET pending lists the owner's pending, unexpired held transactions with ciphertexts to the owner only", async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50 }, { fund: '500' });
    const id = await holdOne(a, '75.529184', 'march invoice');
    await t.sandbox.advance(1000);
    const id2 = await holdOne(a, '80');
    const res = await t.as('@alice').get('/v1/agents/transactions/pending');
    expect(res.status).toBe(200);
    expect(res.body.pending.map((p: { transaction_id: string }) => p.transaction_id)).toEqual([id, id2]);
    const first = res.body.pending[0];
    expect(first).toMatchObject({ transaction_id: id, agent: '@alice/bot', to: '@acme', asset: 'USDG' });
    expect(Date.parse(first.expires_at) - Date.parse(first.requested_at)).toBe(WINDOW);
    expect(res.text).not.toMatch(/75\.529184|75529184|march/);
    const key = aliceKey(t);
    if (key) {
      const owner = t.accountId('@alice');
      expect(decrypt(key.secret, key.publicKey, first.amount_ciphertext, contexts.heldAmount(id, owner))).toBe('75529184');
      expect(decrypt(key.secret, key.publicKey, first.memo_ciphertext, contexts.heldMemo(id, owner))).toBe('march invoice');
      expect(res.body.pending[1].memo_ciphertext).toBeUndefined();
    } else {
      expect(first.amount_ciphertext).toBeUndefined();
    }
    // Other accounts and the agent itself see nothing.
    expect((await t.as('@acme').get('/v1/agents/transactions/pending')).body).toEqual({ pending: [] });
    expect((await t.call('GET', '/v1/agents/transactions/pending', { key: a.key })).body).toEqual({ pending: [] });
    // Decided and expired ones leave the list.
    expect((await reject(id)).status).toBe(200);
    expect((await t.as('@alice').get('/v1/agents/transactions/pending')).body.pending).toHaveLength(1);
    await t.sandbox.advance(WINDOW);
    expect((await t.as('@alice').get('/v1/agents/transactions/pending')).body).toEqual({ pending: [] });
  });

  it('approve inside the window submits the transfer at once from the agent; a second decision is 409', async () => {
    const events = recordEvents(t);
    const a = await makeAgent(t, { hitl_threshold_usdc: 50 }, { fund: '100' });
    const id = await holdOne(a, '75.293816', 'memo');
    await t.sandbox.advance(WINDOW - 1); // the last millisecond of the window
    const res = await approve(id);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ transaction_id: id, status: 'approved', agent: '@alice/bot', to: '@acme', decided_at: new Date(t.world.now()).toISOString() });
    expect(res.body.transfer_id).toMatch(/^tr_/);
    expect(res.text).not.toMatch(/75\.293816|75293816/);
    const transfer = t.world.store.transfer(res.body.transfer_id)!;
    expect(transfer).toMatchObject({ from: '@alice/bot', to: '@acme', status: 'pending', from_account_id: a.account_id });
    expect(t.balance('@alice/bot')).toBe(units('24.706184'));
    await t.sandbox.advance(1500);
    expect(t.balance('@acme')).toBe(units('50075.293816'));
    // The agent sees its transfer.
    expect((await t.call('GET', `/v1/transfers/${res.body.transfer_id}`, { key: a.key })).body.status).toBe('confirmed');
    expect(events.map((e) => e.type)).toEqual(['agent.transaction.pending_approval', 'agent.transaction.approved']);
    expect(events[1]).toMatchObject({ held: { transaction_id: id, status: 'approved', transfer_id: res.body.transfer_id } });

    const again = await approve(id);
    expectApiError(again, 409, 'transaction_already_decided');
    expect(again.body.error.status).toBe('approved');
    expectApiError(await reject(id), 409, 'transaction_already_decided');
  });

  it('reject discards it: no funds move, status rejected, event fired', async () => {
    const events = recordEvents(t);
    const a = await makeAgent(t, { hitl_threshold_usdc: 50 }, { fund: '100' });
    const id = await holdOne(a);
    const res = await reject(id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ transaction_id: id, status: 'rejected', decided_at: new Date(t.world.now()).toISOString() });
    expect(res.body).not.toHaveProperty('transfer_id'); // no transfer was made
    expect(t.balance('@alice/bot')).toBe(units('100'));
    expect(t.world.store.countTransfers(a.account_id)).toBe(0);
    expect(events.map((e) => e.type)).toEqual(['agent.transaction.pending_approval', 'agent.transaction.rejected']);
    expectApiError(await approve(id), 409, 'transaction_already_decided');
  });

  it('after expires_at both approve and reject are 409 transaction_expired, and nothing moves', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50 }, { fund: '100' });
    const id = await holdOne(a);
    await t.sandbox.advance(WINDOW);
    expectApiError(await approve(id), 409, 'transaction_expired');
    expectApiError(await reject(id), 409, 'transaction_expired');
    expect(t.balance('@alice/bot')).toBe(units('100'));
    expect(t.world.store.heldTransaction(id)!.status).toBe('pending_approval');
  });

  it('unknown ids and other accounts\' transactions are 404 transaction_not_found; an agent key is 403 forbidden', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50 }, { fund: '100' });
    const id = await holdOne(a);
    expectApiError(await approve('txn_nope'), 404, 'transaction_not_found');
    expectApiError(await reject('txn_nope'), 404, 'transaction_not_found');
    expectApiError(await approve(id, '@acme'), 404, 'transaction_not_found');
    expectApiError(await reject(id, '@acme'), 404, 'transaction_not_found');
    expectApiError(await t.call('POST', `/v1/agents/transactions/${id}/approve`, { key: a.key }), 403, 'forbidden');
    expectApiError(await t.call('POST', `/v1/agents/transactions/${id}/reject`, { key: a.key }), 403, 'forbidden');
    expect(t.world.store.heldTransaction(id)!.status).toBe('pending_approval');
  });

  it('approve with the agent balance short is 402 insufficient_balance and stays pending; after funding it goes', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50 }, { fund: '10' });
    const id = await holdOne(a, '75');
    expectApiError(await approve(id), 402, 'insufficient_balance');
    expect((await t.as('@alice').get('/v1/agents/transactions/pending')).body.pending).toHaveLength(1);
    await t.admin('POST', '/_sandbox/fund', { handle: '@alice/bot', amount: '100' });
    const ok = await approve(id);
    expect(ok.status).toBe(200);
    expect(t.balance('@alice/bot')).toBe(units('35'));
  });

  it('approve and reject racing on one transaction: exactly one wins', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 1 }, { fund: '500' });
    for (let i = 0; i < 5; i++) {
      const id = await holdOne(a, '2');
      const results = await Promise.all([approve(id), reject(id), approve(id), reject(id)]);
      const winners = results.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) expectApiError(r, 409, 'transaction_already_decided');
      const final = t.world.store.heldTransaction(id)!;
      expect(final.status).toBe(winners[0]!.body.status);
    }
    // Exactly as many transfers as approvals.
    const approved = [...t.world.store.heldTransactions()].filter((h) => h.status === 'approved').length;
    expect(t.world.store.countTransfers(a.account_id)).toBe(approved);
  });

  it('honours the approvalWindowMs option', async () => {
    await t.close();
    t = await startSandbox({ blockTimeMs: 1500, approvalWindowMs: 60_000 });
    await toMorning(t);
    const a = await makeAgent(t, { hitl_threshold_usdc: 1 }, { fund: '10' });
    const res = await sendAs(t, a, { to: '@acme', amount: '2' });
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.requested_at)).toBe(60_000);
    await t.sandbox.advance(60_000);
    expectApiError(await approve(res.body.transaction_id), 409, 'transaction_expired');
  });

  it('reset forgets agents, policies and held transactions', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 1 }, { fund: '10' });
    await holdOne(a, '2');
    expect((await t.admin('POST', '/_sandbox/reset')).status).toBe(200);
    expect(t.world.store.accountByHandle('@alice/bot')).toBeUndefined();
    expect([...t.world.store.allPolicies()]).toHaveLength(0);
    expect([...t.world.store.heldTransactions()]).toHaveLength(0);
  });
});

describe('persistence', () => {
  it('agents, policies and held transactions survive a restart; the database holds no plaintext amount', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-sbx-agents-'));
    try {
      const statePath = join(dir, 'state.db');
      await t.close();
      t = await startSandbox({ ephemeral: false, statePath });
      const a = await makeAgent(t, { hitl_threshold_usdc: 50, allowed_recipients: ['@acme'] }, { fund: '500' });
      const held = await sendAs(t, a, { to: '@acme', amount: '77.123456', memo: 'secret memo' });
      expect(held.status).toBe(202);
      const decided = await sendAs(t, a, { to: '@acme', amount: '66.654321' });
      await t.as('@alice').post(`/v1/agents/transactions/${decided.body.transaction_id}/reject`);
      const policyBefore = (await t.as('@alice').get(policyPath(a.account_id))).body;
      const aliceKeyText = t.keyOf('@alice');
      await t.close();

      expect(dbBytes(statePath)).not.toMatch(/77\.123456|77123456|66\.654321|66654321|secret memo/);
      expect(dbRecords(statePath, 'policies')).toHaveLength(1);
      expect(dbRecords(statePath, 'held')).toHaveLength(2);
      expect(dbRecords(statePath, 'accounts').find((x: { handle: string }) => x.handle === '@alice/bot').parent_account_id).toBeDefined();

      const { openSandbox } = await import('../../src/sandbox/index.js');
      const { handle, world } = await openSandbox({ port: 0, statePath, blockTimeMs: 1500 });
      try {
        const call = async (method: string, path: string, body?: unknown) => {
          const r = await fetch(handle.url + path, { method, headers: { authorization: `Bearer ${aliceKeyText}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
          const text = await r.text();
          checkAnswer(method, path, r.status, text);
          return { status: r.status, body: JSON.parse(text) as any };
        };
        expect((await call('GET', '/v1/accounts/me/agents')).body.agents.map((x: { handle: string }) => x.handle)).toEqual(['@alice/bot']);
        expect((await call('GET', policyPath(a.account_id))).body).toMatchObject({ policy_id: policyBefore.policy_id, hitl_threshold_usdc: 50, allowed_recipients: ['@acme'], updated_at: policyBefore.updated_at });
        const pending = (await call('GET', '/v1/agents/transactions/pending')).body.pending;
        expect(pending.map((p: { transaction_id: string }) => p.transaction_id)).toEqual([held.body.transaction_id]);
        const approved = await call('POST', `/v1/agents/transactions/${held.body.transaction_id}/approve`, {});
        expect(approved.status).toBe(200);
        expect(world.store.balance(a.account_id, 'USDG')).toBe(units('500') - units('77.123456'));
        expect((await call('POST', `/v1/agents/transactions/${decided.body.transaction_id}/approve`, {})).body.error.code).toBe('transaction_already_decided');
      } finally {
        await handle.close();
      }
      t = await startSandbox(); // for afterEach
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
