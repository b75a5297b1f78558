// A held agent transaction as a resource (docs/agents.md "Held transactions as a resource", beyond
// the spec): GET /v1/agents/transactions/{id} for the owner and the agent itself, the history
// GET /v1/agents/transactions, approve / reject answering the resource, expiry read on the
// sandbox's clock, and a restart of a durable sandbox keeping every decision. Every answer also
// passes the shared schemas (helpers.ts: the check fails on a field they do not declare).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contexts, decrypt } from '../../src/crypto/ciphertext.js';
import { parseDecryptionKey } from '../../src/crypto/viewing-key.js';
import { dbRecords, expectApiError, makeAgent, startSandbox, type TestAgent, type TestSandbox } from './helpers.js';

const WINDOW = 15 * 60_000;
let t: TestSandbox;

beforeEach(async () => {
  t = await startSandbox();
});
afterEach(async () => {
  await t.close();
});

function keyOf(dk: string | undefined) {
  const parsed = parseDecryptionKey(dk ?? '');
  if (!parsed.ok) throw new Error(parsed.rule);
  return parsed.value;
}
const aliceKey = () => keyOf(t.sandbox.seeded.find((s) => s.handle === '@alice')?.decryptionKey);

async function hold(a: TestAgent, amount = '75', memo?: string): Promise<string> {
  const res = await t.call('POST', '/v1/transfers', { key: a.key, body: { to: '@acme', amount, ...(memo ? { memo } : {}) } });
  expect(res.status, res.text).toBe(202);
  return res.body.transaction_id;
}
const read = (id: string, key: string) => t.call('GET', `/v1/agents/transactions/${id}`, { key });
const history = (key: string, query = '') => t.call('GET', `/v1/agents/transactions${query}`, { key });
const ids = (res: { body: { transactions: Array<{ transaction_id: string }> } }) => res.body.transactions.map((x) => x.transaction_id);

describe('GET /v1/agents/transactions/{id}', () => {
  it('the owner and the agent read it: exact fields, amount and memo only as ciphertexts to each reader', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50 }, { fund: '500' });
    const id = await hold(a, '75.529184', 'march invoice');
    const now = t.world.now();
    const owner = await read(id, t.keyOf('@alice'));
    expect(owner.status, owner.text).toBe(200);
    expect(owner.body).toEqual({
      transaction_id: id, status: 'pending_approval', agent: '@alice/bot', to: '@acme', asset: 'USDG',
      requested_at: new Date(now).toISOString(), expires_at: new Date(now + WINDOW).toISOString(),
      rule: 'hitl_threshold', hitl_threshold_usdc: 50, approvals_required: 1, approvals: [],
      amount_ciphertext: expect.any(String), memo_ciphertext: expect.any(String),
    });
    const agent = await read(id, a.key);
    expect(agent.status, agent.text).toBe(200);
    const { amount_ciphertext: oa, memo_ciphertext: om, ...ownerRest } = owner.body;
    const { amount_ciphertext: aa, memo_ciphertext: am, ...agentRest } = agent.body;
    expect(agentRest).toEqual(ownerRest);
    for (const res of [owner, agent]) expect(res.text).not.toMatch(/75\.529184|75529184|march/);
    // Each opens with its reader's key only, bound to the transaction and the reader.
    const ak = aliceKey();
    const bk = keyOf(a.decryptionKey);
    const ownerId = t.accountId('@alice');
    expect(decrypt(ak.keyObject, ak.publicKey, oa, contexts.heldAmount(id, ownerId))).toBe('75529184');
    expect(decrypt(ak.keyObject, ak.publicKey, om, contexts.heldMemo(id, ownerId))).toBe('march invoice');
    expect(decrypt(bk.keyObject, bk.publicKey, aa, contexts.heldAmount(id, a.account_id))).toBe('75529184');
    expect(decrypt(bk.keyObject, bk.publicKey, am, contexts.heldMemo(id, a.account_id))).toBe('march invoice');
    expect(() => decrypt(bk.keyObject, bk.publicKey, oa, contexts.heldAmount(id, ownerId))).toThrow();
    expect(() => decrypt(ak.keyObject, ak.publicKey, aa, contexts.heldAmount(id, a.account_id))).toThrow();
  });

  it("another account's key, another agent's, and an unknown id are the same 404 (existence not revealed)", async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 1 }, { fund: '100' });
    const other = await makeAgent(t, {}, { name: 'other' });
    const bobs = await makeAgent(t, {}, { owner: '@acme', name: 'acmebot' });
    const id = await hold(a, '5');
    for (const key of [t.keyOf('@acme'), other.key, bobs.key]) expectApiError(await read(id, key), 404, 'transaction_not_found');
    expectApiError(await read('txn_doesnotexist0000000000', t.keyOf('@alice')), 404, 'transaction_not_found');
    // The queue's own route is not an id.
    expect((await t.as('@alice').get('/v1/agents/transactions/pending')).body.pending).toHaveLength(1);
  });

  it('approve answers the resource: decided_at, decided_by (the key\'s name and the owner), transfer_id; a read says the same', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50 }, { fund: '500' });
    const id = await hold(a);
    await t.sandbox.advance(2000);
    const approved = await t.as('@alice').post(`/v1/agents/transactions/${id}/approve`);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({
      transaction_id: id, status: 'approved', decided_at: new Date(t.world.now()).toISOString(),
      decided_by: { key_name: 'seed', account: '@alice' }, transfer_id: expect.stringMatching(/^tr_/), rule: 'hitl_threshold',
    });
    expect((await read(id, t.keyOf('@alice'))).body).toEqual(approved.body);
    const byAgent = await read(id, a.key);
    expect(byAgent.body).toMatchObject({ status: 'approved', transfer_id: approved.body.transfer_id, decided_by: { key_name: 'seed', account: '@alice' } });
    // The decision stands after the window closes: approved is not expired.
    await t.sandbox.advance(WINDOW);
    expect((await read(id, a.key)).body.status).toBe('approved');
  });

  it('reject answers the resource without transfer_id; a stored reason is shown; a named key is named', async () => {
    const named = await t.admin('POST', '/_sandbox/keys', { account: '@alice', name: 'approver-laptop' });
    const a = await makeAgent(t, { hitl_threshold_usdc: 1 }, { fund: '100' });
    const id = await hold(a, '5');
    const rejected = await t.call('POST', `/v1/agents/transactions/${id}/reject`, { key: named.body.key });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', decided_by: { key_name: 'approver-laptop', account: '@alice' } });
    expect(rejected.body).not.toHaveProperty('transfer_id');
    expect(rejected.body).not.toHaveProperty('reason');
    // A reason on the record (the reject body's, when given) is part of the resource.
    t.world.store.heldTransaction(id)!.reason = 'not this vendor';
    expect((await read(id, a.key)).body).toMatchObject({ status: 'rejected', reason: 'not this vendor' });
  });

  it('reads expired once expires_at passes on the sandbox clock, untouched; no decided_at or decided_by', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 1 }, { fund: '100' });
    const id = await hold(a, '5');
    await t.sandbox.advance(WINDOW - 1);
    expect((await read(id, a.key)).body.status).toBe('pending_approval');
    await t.sandbox.advance(1);
    const expired = await read(id, a.key);
    expect(expired.body.status).toBe('expired');
    expect(expired.body).not.toHaveProperty('decided_at');
    expect(expired.body).not.toHaveProperty('decided_by');
    expectApiError(await t.as('@alice').post(`/v1/agents/transactions/${id}/approve`), 409, 'transaction_expired');
    expect((await read(id, t.keyOf('@alice'))).body.status).toBe('expired');
  });
});

describe('GET /v1/agents/transactions: the history', () => {
  it('newest first, all four statuses, filtered by status, paged like transfers', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 1 }, { fund: '500' });
    const expires = await hold(a, '2');
    await t.sandbox.advance(WINDOW); // the first expires
    const approved = await hold(a, '3');
    await t.sandbox.advance(1000);
    const rejected = await hold(a, '4');
    await t.sandbox.advance(1000);
    const pending = await hold(a, '5');
    expect((await t.as('@alice').post(`/v1/agents/transactions/${approved}/approve`)).status).toBe(200);
    expect((await t.as('@alice').post(`/v1/agents/transactions/${rejected}/reject`)).status).toBe(200);

    const all = await history(t.keyOf('@alice'));
    expect(all.status, all.text).toBe(200);
    expect(ids(all)).toEqual([pending, rejected, approved, expires]);
    expect(all.body.transactions.map((x: { status: string }) => x.status)).toEqual(['pending_approval', 'rejected', 'approved', 'expired']);
    expect(all.body).toMatchObject({ limit: 20, offset: 0, has_more: false });
    for (const [status, id] of [['pending_approval', pending], ['approved', approved], ['rejected', rejected], ['expired', expires]] as const) {
      expect(ids(await history(t.keyOf('@alice'), `?status=${status}`)), status).toEqual([id]);
    }
    const page1 = await history(t.keyOf('@alice'), '?limit=3');
    expect([ids(page1), page1.body.has_more]).toEqual([[pending, rejected, approved], true]);
    const page2 = await history(t.keyOf('@alice'), '?limit=3&offset=3');
    expect([ids(page2), page2.body.has_more, page2.body.offset]).toEqual([[expires], false, 3]);
    expectApiError(await history(t.keyOf('@alice'), '?status=held'), 400, 'invalid_request');
    expectApiError(await history(t.keyOf('@alice'), '?limit=0'), 400, 'invalid_request');
  });

  it("an owner sees all its agents', an agent only its own, anyone else nothing", async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 1 }, { fund: '100' });
    const b = await makeAgent(t, { hitl_threshold_usdc: 1 }, { name: 'second', fund: '100' });
    const fromA = await hold(a, '2');
    await t.sandbox.advance(1);
    const fromB = await hold(b, '3');
    expect(ids(await history(t.keyOf('@alice')))).toEqual([fromB, fromA]);
    expect(ids(await history(a.key))).toEqual([fromA]);
    expect(ids(await history(b.key))).toEqual([fromB]);
    expect(ids(await history(t.keyOf('@acme')))).toEqual([]);
  });
});

describe('a durable sandbox', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-sbx-held-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits every decision before answering: a restart keeps the history, decided_by included', async () => {
    const statePath = join(dir, 'state.db');
    // No periodic flush during the test: what is on disk was committed by the request itself.
    const first = await startSandbox({ ephemeral: false, statePath }, { internals: { flushEveryMs: 3_600_000 } });
    const a = await makeAgent(first, { hitl_threshold_usdc: 1 }, { fund: '100' });
    const send = async (amount: string) => (await first.call('POST', '/v1/transfers', { key: a.key, body: { to: '@acme', amount } })).body.transaction_id as string;
    const approved = await send('2');
    const rejected = await send('3');
    const alice = first.keyOf('@alice');
    const onDiskNow = (id: string) => dbRecords(statePath, 'held').find((h: { transaction_id: string }) => h.transaction_id === id);
    expect((await first.call('POST', `/v1/agents/transactions/${approved}/approve`, { key: alice })).status).toBe(200);
    expect(onDiskNow(approved)).toMatchObject({ status: 'approved', decided_by: { key_name: 'seed', account: '@alice' }, transfer_id: expect.stringMatching(/^tr_/) });
    expect((await first.call('POST', `/v1/agents/transactions/${rejected}/reject`, { key: alice })).status).toBe(200);
    expect(onDiskNow(rejected)).toMatchObject({ status: 'rejected', decided_by: { key_name: 'seed', account: '@alice' } });
    const before = (await first.call('GET', '/v1/agents/transactions', { key: alice })).body;
    await first.close();

    const second = await startSandbox({ ephemeral: false, statePath });
    try {
      const after = await second.call('GET', '/v1/agents/transactions', { key: alice });
      expect(after.body).toEqual(before);
      expect(after.body.transactions.map((x: { status: string }) => x.status).sort()).toEqual(['approved', 'rejected']);
      expect(after.body.transactions.every((x: { decided_by?: unknown }) => x.decided_by !== undefined)).toBe(true);
      expect((await second.call('GET', `/v1/agents/transactions/${approved}`, { key: a.key })).body.status).toBe('approved');
    } finally {
      await second.close();
    }
  });
});
