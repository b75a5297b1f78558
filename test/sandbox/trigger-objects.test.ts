// POST /_sandbox/trigger: every sample names objects that exist (the API returns each id it
// carries), the trigger sends the sample alone (the events of the operations behind it are not
// sent), it costs the account nothing, and a retry under its Idempotency-Key makes nothing twice.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/domain/events.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { makeAgent, startSandbox, type TestSandbox } from './helpers.js';

let t: TestSandbox;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(() => rx.close());
beforeEach(async () => {
  t = await startSandbox({ blockTimeMs: 60_000 });
  rx.got.length = 0;
});
afterEach(() => t.close());

const trigger = (event: string, account?: string, headers?: Record<string, string>) =>
  t.admin('POST', '/_sandbox/trigger', { event, ...(account ? { account } : {}) }, headers ? { headers } : {});

/** The ids a sample of each type must name. */
const NAMES: Record<string, string[]> = {
  'transfer.initiated': ['transfer_id'], 'transfer.confirmed': ['transfer_id'], 'transfer.failed': ['transfer_id'],
  'agent.transaction.pending_approval': ['transaction_id', 'agent'],
  'agent.transaction.approved': ['transaction_id', 'agent', 'transfer_id'],
  'agent.transaction.rejected': ['transaction_id', 'agent'],
  'agent.policy.updated': ['agent', 'policy_id'],
};

/** Reads each object `body` names with the owner's key: each exists, in the state its event says. */
async function expectReal(body: Record<string, string>, ownerKey: string): Promise<void> {
  for (const id of NAMES[body.event]!) expect(body[id], `${body.event} names no ${id}`).toEqual(expect.any(String));
  const get = (path: string) => t.call('GET', path, { key: ownerKey });
  if (body.transfer_id) {
    const tr = await get(`/v1/transfers/${body.transfer_id}`);
    expect(tr.status, tr.text).toBe(200);
    const want = { 'transfer.initiated': 'pending', 'transfer.confirmed': 'confirmed', 'transfer.failed': 'failed' }[body.event] ?? 'pending';
    expect(tr.body.status).toBe(want);
  }
  if (body.transaction_id) {
    const held = await get(`/v1/agents/transactions/${body.transaction_id}`);
    expect(held.status, held.text).toBe(200);
    const want = { 'agent.transaction.pending_approval': 'pending_approval', 'agent.transaction.approved': 'approved', 'agent.transaction.rejected': 'rejected' }[body.event];
    expect(held.body).toMatchObject({ status: want, agent: body.agent, ...(body.transfer_id ? { transfer_id: body.transfer_id } : {}) });
  }
  if (body.policy_id) {
    const agents = (await get('/v1/accounts/me/agents')).body.agents as Array<{ account_id: string; handle: string }>;
    const agent = agents.find((a) => a.handle === body.agent);
    expect(agent, `${body.agent} among ${JSON.stringify(agents)}`).toBeDefined();
    expect((await get(`/v1/agents/${agent!.account_id}/spend-policy`)).body.policy_id).toBe(body.policy_id);
  }
}

describe('a sample names real objects', () => {
  it.each(EVENT_TYPES)('%s: every id in the answer and in the delivered body is one the API returns', async (type) => {
    await t.as('@alice').post('/v1/webhooks', { url: rx.url, events: [type] });
    const res = await trigger(type);
    expect(res.status, res.text).toBe(202);
    expect(res.body.deliveries).toHaveLength(1);
    await rx.waitFor(1);
    const delivered = rx.got[0]!.json as Record<string, string>;
    expect(delivered).toMatchObject({ event_id: res.body.event_id, sample: true });
    // What a receiver acts on: the delivered body's ids (and the answer gives the same ones).
    await expectReal(delivered, t.keyOf('@alice'));
    for (const id of NAMES[type]!) expect(res.body[id], id).toBe(delivered[id]);
  });

  it('for an agent named as the account: its own objects (not the sample agent\'s)', async () => {
    const bot = await makeAgent(t, { daily_limit_usdc: 100 });
    for (const type of EVENT_TYPES) {
      const res = await trigger(type, bot.handle);
      expect(res.status, res.text).toBe(202);
      if (res.body.agent) expect(res.body.agent).toBe(bot.handle);
      await expectReal({ ...res.body, event: type }, t.keyOf('@alice'));
    }
    expect((await t.as('@alice').get('/v1/accounts/me/agents')).body.agents.map((a: { handle: string }) => a.handle)).toEqual([bot.handle]);
  });
});

describe('what a trigger does besides', () => {
  it('sends the sample alone: a subscriber to every event gets one delivery per trigger', async () => {
    await t.as('@alice').post('/v1/webhooks', { url: rx.url, events: EVENT_TYPES });
    for (const type of EVENT_TYPES) expect((await trigger(type)).body.deliveries).toHaveLength(1);
    await t.sandbox.webhooksIdle();
    expect(rx.got.map((g) => g.json.event)).toEqual(EVENT_TYPES);
  });

  it('costs the account nothing: its balances are as before each trigger', async () => {
    // The sample agent exists from the first agent event on (with nothing); a pending held
    // transaction keeps its funding, so that approving it can pay.
    const agentBalance = () => (t.world.store.accountByHandle('@alice/sample-agent') ? t.balance('@alice/sample-agent', 'USDG') : 0n);
    for (const type of EVENT_TYPES) {
      const before = [t.balance('@alice', 'USDG'), agentBalance()];
      await trigger(type);
      expect(t.balance('@alice', 'USDG'), type).toBe(before[0]);
      if (type !== 'agent.transaction.pending_approval') expect(agentBalance(), type).toBe(before[1]);
    }
  });

  it('a retry under the same Idempotency-Key answers the same sample and makes nothing twice', async () => {
    const first = await trigger('agent.transaction.pending_approval', undefined, { 'idempotency-key': 'trig-1' });
    const again = await trigger('agent.transaction.pending_approval', undefined, { 'idempotency-key': 'trig-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect((await t.as('@alice').get('/v1/agents/transactions/pending')).body.pending).toHaveLength(1);
  });
});
