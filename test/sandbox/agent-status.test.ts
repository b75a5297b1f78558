// Suspending and resuming an agent (sandbox extension, docs/agents.md "Suspending an agent"):
// POST /v1/agents/{id}/suspend|resume, and what a suspended agent can and cannot do.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dbExec, dbRecords, makeAgent, startSandbox, units, type TestAgent, type TestSandbox, expectApiError } from './helpers.js';

let t: TestSandbox;
let bot: TestAgent;
beforeEach(async () => {
  t = await startSandbox({ blockTimeMs: 1500 });
  bot = await makeAgent(t, { hitl_threshold_usdc: 50, allowed_recipients: ['@acme'] }, { fund: '500' });
});
afterEach(async () => {
  await t.close();
});

const suspend = (id = bot.account_id, key = t.keyOf('@alice'), headers: Record<string, string> = {}) => t.call('POST', `/v1/agents/${id}/suspend`, { key, headers });
const resume = (id = bot.account_id, key = t.keyOf('@alice'), headers: Record<string, string> = {}) => t.call('POST', `/v1/agents/${id}/resume`, { key, headers });
const sendAs = (body: Record<string, unknown>) => t.call('POST', '/v1/transfers', { key: bot.key, body });
const listed = async () => (await t.as('@alice').get('/v1/accounts/me/agents')).body.agents.find((a: { account_id: string }) => a.account_id === bot.account_id);

describe('POST /v1/agents/{id}/suspend and /resume', () => {
  it('answer 200 with the agent as the list shows it; the list shows the status', async () => {
    const before = await listed();
    expect(before.status).toBe('active');
    const res = await suspend();
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...before, status: 'suspended' });
    expect(await listed()).toEqual(res.body);
    const back = await resume();
    expect(back.status).toBe(200);
    expect(back.body).toEqual(before);
    expect(await listed()).toEqual(before);
  });

  it('suspending a suspended agent, or resuming an active one, changes nothing and answers the same object', async () => {
    const active = await resume();
    expect(active.status).toBe(200);
    expect(active.body.status).toBe('active');
    const first = await suspend();
    await t.sandbox.advance(5_000);
    const again = await suspend();
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
  });

  it('only the owner: unknown ids and other accounts\' agents are 403 not_agent_owner, the agent itself 403 forbidden', async () => {
    expectApiError(await suspend('acct_doesnotexist000000'), 403, 'not_agent_owner');
    expectApiError(await resume('acct_doesnotexist000000'), 403, 'not_agent_owner');
    expectApiError(await suspend(bot.account_id, t.keyOf('@acme')), 403, 'not_agent_owner');
    expectApiError(await resume(bot.account_id, t.keyOf('@acme')), 403, 'not_agent_owner');
    expectApiError(await suspend(t.accountId('@acme')), 403, 'not_agent_owner'); // not an agent
    expectApiError(await suspend(t.accountId('@alice')), 403, 'not_agent_owner'); // yourself
    const own = await suspend(bot.account_id, bot.key);
    expectApiError(own, 403, 'forbidden');
    expect(own.body.error.message).toContain('cannot suspend itself');
    expectApiError(await resume(bot.account_id, bot.key), 403, 'forbidden');
    const sibling = await makeAgent(t, {}, { name: 'sibling' });
    expectApiError(await suspend(bot.account_id, sibling.key), 403, 'not_agent_owner');
    expectApiError(await t.call('POST', `/v1/agents/${bot.account_id}/suspend`), 401, 'unauthorized');
    expectApiError(await t.call('GET', `/v1/agents/${bot.account_id}/suspend`, { key: t.keyOf('@alice') }), 405, 'method_not_allowed');
    expect((await listed()).status).toBe('active');
  });

  it('honour Idempotency-Key: the same request replays, another request with the key is 409', async () => {
    const h = { 'idempotency-key': 'pause-bot-1' };
    const first = await suspend(bot.account_id, t.keyOf('@alice'), h);
    expect(first.status).toBe(200);
    await resume(); // changed meanwhile: the replay still answers the first answer
    const again = await suspend(bot.account_id, t.keyOf('@alice'), h);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect((await listed()).status).toBe('active');
    expectApiError(await resume(bot.account_id, t.keyOf('@alice'), h), 409, 'idempotency_key_reused');
  });

  it('fire no webhook event (the spec has none for a status change)', async () => {
    const sub = await t.as('@alice').post('/v1/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['transfer.initiated', 'transfer.confirmed', 'transfer.failed', 'agent.transaction.pending_approval', 'agent.transaction.approved', 'agent.transaction.rejected', 'agent.policy.updated'],
    });
    expect(sub.status).toBe(201);
    await suspend();
    await resume();
    expect(t.world.webhooks.pending).toBe(0);
    expect(t.world.webhooks.busy).toBe(0);
  });
});

describe('a suspended agent', () => {
  beforeEach(async () => {
    expect((await suspend()).status).toBe(200);
  });

  it('gets 403 forbidden (reason agent_suspended) on POST /v1/transfers, naming itself and how its owner resumes it; nothing moves', async () => {
    const res = await sendAs({ to: '@acme', amount: '1' });
    expectApiError(res, 403, 'forbidden');
    expect(res.body.error.reason).toBe('agent_suspended');
    expect(res.body.error.message).toContain(bot.handle);
    expect(res.body.error.message).toContain(`svc agent resume ${bot.handle}`);
    expect(t.balance(bot.handle)).toBe(units('500'));
    expect(t.world.store.countTransfers(bot.account_id)).toBe(0);
  });

  it('is checked after body validation and before the policy gate (no hold, no policy verdict)', async () => {
    expectApiError(await sendAs({ to: '@acme', amount: 5 }), 400, 'invalid_request');
    expectApiError(await sendAs({ to: '@bob', amount: '1' }), 403, 'forbidden'); // the policy would deny this recipient
    expectApiError(await sendAs({ to: '@acme', amount: '75' }), 403, 'forbidden'); // the policy would hold this one
    expectApiError(await sendAs({ to: '@nobody', amount: '1' }), 403, 'forbidden');
    expect((await t.as('@alice').get('/v1/agents/transactions/pending')).body.pending).toEqual([]);
  });

  it('still reads: its account, its transfers, its policy', async () => {
    expect((await t.call('GET', '/v1/accounts/me', { key: bot.key })).status).toBe(200);
    expect((await t.call('GET', '/v1/transfers', { key: bot.key })).status).toBe(200);
    expect((await t.call('GET', `/v1/agents/${bot.account_id}/spend-policy`, { key: bot.key })).status).toBe(200);
    expect((await t.call('GET', '/v1/accounts/me/balances', { key: bot.key })).status).toBe(200);
  });

  it('its held transactions stay with the owner: approve submits the transfer, reject discards', async () => {
    await resume();
    const one = await sendAs({ to: '@acme', amount: '75' });
    const two = await sendAs({ to: '@acme', amount: '80' });
    expect([one.status, two.status]).toEqual([202, 202]);
    await suspend();
    expect((await t.as('@alice').get('/v1/agents/transactions/pending')).body.pending).toHaveLength(2);
    const approved = await t.as('@alice').post(`/v1/agents/transactions/${one.body.transaction_id}/approve`);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', transfer_id: expect.stringMatching(/^tr_/) });
    expect(t.balance(bot.handle)).toBe(units('425'));
    const rejected = await t.as('@alice').post(`/v1/agents/transactions/${two.body.transaction_id}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('rejected');
    await t.sandbox.advance(1500);
    expect((await t.call('GET', `/v1/transfers/${approved.body.transfer_id}`, { key: bot.key })).body.status).toBe('confirmed');
  });

  it('sends again once resumed', async () => {
    await resume();
    expect((await sendAs({ to: '@acme', amount: '1' })).status).toBe(201);
  });

  it('can still have its policy changed by its owner', async () => {
    const res = await t.call('PATCH', `/v1/agents/${bot.account_id}/spend-policy`, { key: t.keyOf('@alice'), body: { hitl_threshold_usdc: 60 } });
    expect(res.status).toBe(200);
    expect((await listed()).status).toBe('suspended');
  });
});

describe('the status in the database', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-agent-status-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('a suspension survives a restart; an agent saved before statuses existed loads as active', async () => {
    const statePath = join(dir, 'state.db');
    await t.close();
    t = await startSandbox({ ephemeral: false, statePath });
    const one = await makeAgent(t, {}, { name: 'one', fund: '5' });
    const two = await makeAgent(t, {}, { name: 'two', fund: '5' });
    expect((await suspend(one.account_id)).status).toBe(200);
    const aliceKey = t.keyOf('@alice');
    await t.close();

    // As an older sandbox wrote it: agents without a status.
    const saved = dbRecords(statePath, 'accounts').filter((a: { type: string }) => a.type === 'agent');
    expect(saved.map((a: { status?: string }) => a.status)).toEqual(['suspended', 'active']);
    dbExec(statePath, `UPDATE accounts SET record = json_remove(record, '$.status') WHERE account_id = '${two.account_id}'`);

    t = await startSandbox({ ephemeral: false, statePath });
    const agents = (await t.call('GET', '/v1/accounts/me/agents', { key: aliceKey })).body.agents;
    expect(agents.map((a: { handle: string; status: string }) => [a.handle, a.status])).toEqual([['@alice/one', 'suspended'], ['@alice/two', 'active']]);
    expect(t.world.store.account(two.account_id)!.status).toBe('active');
    expect(t.world.store.account(t.accountId('@alice'))!.status).toBeUndefined(); // not an agent
    const k = await t.admin('POST', '/_sandbox/keys', { account: '@alice/one' });
    expectApiError(await t.call('POST', '/v1/transfers', { key: k.body.key, body: { to: '@acme', amount: '1' } }), 403, 'forbidden');
    await t.close();
    t = await startSandbox(); // an ephemeral one for afterEach, so nothing writes into the removed dir
  });
});
