// Two-person approval (DESIGN.md "Quorum", beyond the spec): a policy's `approvals_required`
// asks that many distinct owner keys to approve a held transaction. Each key counts once (the
// same key again: 409 already_approved, nothing changes, whatever its Idempotency-Key); the
// agent's key never counts; the last needed approval makes the transfer once and fires
// `agent.transaction.approved` once; any reject ends it; a quorum not reached by `expires_at`
// expires. Every answer also passes the shared schemas (helpers.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxEvent } from '../../src/sandbox/store/events.js';
import { sidesOf } from '../../src/sandbox/webhooks/payloads.js';
import { dbRecords, expectApiError, makeAgent, startSandbox, units, type TestAgent, type TestSandbox } from './helpers.js';

const WINDOW = 15 * 60_000;
const RULE = 'approvals_required must be a whole number from 1 to 5';
let t: TestSandbox;

beforeEach(async () => {
  t = await startSandbox();
});
afterEach(async () => {
  await t.close();
});

/** A second key of @alice's account: another approver. */
async function ownerKey(name: string, on: TestSandbox = t): Promise<string> {
  const res = await on.admin('POST', '/_sandbox/keys', { account: '@alice', name });
  expect(res.status, res.text).toBe(201);
  return res.body.key as string;
}

function events(on: TestSandbox = t): SandboxEvent[] {
  const seen: SandboxEvent[] = [];
  for (const type of ['agent.transaction.pending_approval', 'agent.transaction.approved', 'agent.transaction.rejected'] as const) {
    on.world.store.on(type, (e) => seen.push(e));
  }
  return seen;
}

async function hold(a: TestAgent, amount = '75', on: TestSandbox = t): Promise<string> {
  const res = await on.call('POST', '/v1/transfers', { key: a.key, body: { to: '@acme', amount } });
  expect(res.status, res.text).toBe(202);
  return res.body.transaction_id as string;
}

const approve = (id: string, key: string, headers: Record<string, string> = {}, on: TestSandbox = t) =>
  on.call('POST', `/v1/agents/transactions/${id}/approve`, { key, headers });
const reject = (id: string, key: string) => t.call('POST', `/v1/agents/transactions/${id}/reject`, { key });
const read = (id: string, key: string, on: TestSandbox = t) => on.call('GET', `/v1/agents/transactions/${id}`, { key });
const iso = (ms: number) => new Date(ms).toISOString();

describe('a policy that needs two approvals', () => {
  it('1 of 2 leaves it pending: 200 with the approval recorded, no transfer, nothing moved, no approved event', async () => {
    const seen = events();
    const a = await makeAgent(t, { hitl_threshold_usdc: 50, approvals_required: 2 }, { fund: '500' });
    const id = await hold(a);
    const heldAt = t.world.now();
    await t.sandbox.advance(60_000);
    const at = t.world.now();
    const first = await approve(id, t.keyOf('@alice'));
    expect(first.status, first.text).toBe(200);
    const { amount_ciphertext: _ct, ...shown } = first.body;
    expect(shown).toEqual({
      transaction_id: id, status: 'pending_approval', agent: '@alice/bot', to: '@acme', asset: 'USDG',
      requested_at: iso(heldAt), expires_at: iso(heldAt + WINDOW),
      rule: 'hitl_threshold', hitl_threshold_usdc: 50,
      approvals_required: 2, approvals: [{ key_name: 'seed', account: '@alice', at: iso(at) }],
    });
    expect(t.world.store.countTransfers(a.account_id)).toBe(0);
    expect(t.balance('@alice/bot')).toBe(units('500'));
    expect(seen.map((e) => e.type)).toEqual(['agent.transaction.pending_approval']);
    // Every view says the same: the resource (owner and agent), and the owner's pending list.
    expect((await read(id, t.keyOf('@alice'))).body).toEqual(first.body);
    expect((await read(id, a.key)).body).toMatchObject({ status: 'pending_approval', approvals_required: 2, approvals: shown.approvals });
    const pending = (await t.as('@alice').get('/v1/agents/transactions/pending')).body.pending;
    expect(pending).toEqual([expect.objectContaining({ transaction_id: id, approvals_required: 2, approvals: shown.approvals })]);
  });

  it('the same key twice counts once: 409 already_approved, state unchanged, also under a new Idempotency-Key; its own retry replays', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50, approvals_required: 2 }, { fund: '500' });
    const id = await hold(a);
    const alice = t.keyOf('@alice');
    const first = await approve(id, alice, { 'idempotency-key': 'approve-1' });
    expect(first.status, first.text).toBe(200);
    await t.sandbox.advance(1_000);
    for (const headers of [{}, { 'idempotency-key': 'approve-2' }] as Array<Record<string, string>>) {
      const again = await approve(id, alice, headers);
      expectApiError(again, 409, 'already_approved');
      expect(again.body.error.message).toMatch(/already approved/);
    }
    // The same request under its first Idempotency-Key is a retry: the first answer, replayed.
    const retry = await approve(id, alice, { 'idempotency-key': 'approve-1' });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    const now = await read(id, alice);
    expect(now.body).toEqual(first.body);
    expect(t.world.store.heldTransaction(id)!.approvals).toHaveLength(1);
    expect(t.world.store.countTransfers(a.account_id)).toBe(0);
  });

  it('the second key completes it: one transfer, one approved event, decided_by that key, approvals newest last', async () => {
    const seen = events();
    const a = await makeAgent(t, { hitl_threshold_usdc: 50, approvals_required: 2 }, { fund: '500' });
    const id = await hold(a, '75.293816');
    const ops2 = await ownerKey('ops2');
    const t1 = t.world.now();
    expect((await approve(id, t.keyOf('@alice'), { 'idempotency-key': 'shared-key' })).status).toBe(200);
    await t.sandbox.advance(30_000);
    const t2 = t.world.now();
    // Another key's Idempotency-Key is not this one's: the same header value does not replay the first key's answer.
    const done = await approve(id, ops2, { 'idempotency-key': 'shared-key' });
    expect(done.status, done.text).toBe(200);
    expect(done.headers.get('idempotent-replayed')).toBeNull();
    expect(done.body).toMatchObject({
      status: 'approved', decided_at: iso(t2), decided_by: { key_name: 'ops2', account: '@alice' },
      approvals_required: 2,
      approvals: [{ key_name: 'seed', account: '@alice', at: iso(t1) }, { key_name: 'ops2', account: '@alice', at: iso(t2) }],
      transfer_id: expect.stringMatching(/^tr_/),
    });
    expect(t.world.store.countTransfers(a.account_id)).toBe(1);
    expect(t.balance('@alice/bot')).toBe(units('424.706184'));
    const approvedEvents = seen.filter((e) => e.type === 'agent.transaction.approved');
    expect(approvedEvents).toHaveLength(1);
    // Its webhook payload carries the quorum and who approved, never an amount.
    const [side] = sidesOf(t.world.store, approvedEvents[0]!);
    expect(side!.fields).toMatchObject({ transaction_id: id, approvals_required: 2, approvals: done.body.approvals, transfer_id: done.body.transfer_id });
    expect(JSON.stringify(side!.fields)).not.toMatch(/amount|75\.293816|75293816/);
    // Decided: a third approval, by either key, changes nothing.
    expectApiError(await approve(id, t.keyOf('@alice')), 409, 'transaction_already_decided');
    expectApiError(await approve(id, await ownerKey('ops3')), 409, 'transaction_already_decided');
    expect(t.world.store.countTransfers(a.account_id)).toBe(1);
    expect(seen.filter((e) => e.type === 'agent.transaction.approved')).toHaveLength(1);
  });

  it('approve then reject: rejected, decided_by the rejecting key, the approval kept, nothing sent', async () => {
    const seen = events();
    const a = await makeAgent(t, { hitl_threshold_usdc: 50, approvals_required: 2 }, { fund: '500' });
    const id = await hold(a);
    const ops2 = await ownerKey('ops2');
    expect((await approve(id, t.keyOf('@alice'))).status).toBe(200);
    const rejected = await reject(id, ops2);
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body).toMatchObject({
      status: 'rejected', decided_by: { key_name: 'ops2', account: '@alice' },
      approvals_required: 2, approvals: [{ key_name: 'seed', account: '@alice' }],
    });
    expect(rejected.body.transfer_id).toBeUndefined();
    expectApiError(await approve(id, ops2), 409, 'transaction_already_decided');
    expect(t.world.store.countTransfers(a.account_id)).toBe(0);
    expect(seen.map((e) => e.type)).toEqual(['agent.transaction.pending_approval', 'agent.transaction.rejected']);
  });

  it('1 of 2, then the deadline: expired (fail closed), a late approval 409 transaction_expired, nothing sent', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50, approvals_required: 2 }, { fund: '500' });
    const id = await hold(a);
    const ops2 = await ownerKey('ops2');
    expect((await approve(id, t.keyOf('@alice'))).status).toBe(200);
    await t.sandbox.advance(WINDOW);
    const late = await approve(id, ops2);
    expectApiError(late, 409, 'transaction_expired');
    const after = await read(id, t.keyOf('@alice'));
    expect(after.body).toMatchObject({ status: 'expired', approvals_required: 2, approvals: [{ key_name: 'seed' }] });
    expect(after.body.decided_by).toBeUndefined();
    expect(t.world.store.countTransfers(a.account_id)).toBe(0);
    expect((await t.as('@alice').get('/v1/agents/transactions/pending')).body.pending).toEqual([]);
  });

  it("the agent's own key never counts: 403 forbidden, nothing recorded", async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50, approvals_required: 2 }, { fund: '500' });
    const id = await hold(a);
    expectApiError(await approve(id, a.key), 403, 'forbidden');
    expect((await read(id, t.keyOf('@alice'))).body.approvals).toEqual([]);
  });

  it('the quorum is fixed when held: a later policy change does not move it', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50, approvals_required: 2 }, { fund: '500' });
    const id = await hold(a);
    const patched = await t.call('PATCH', `/v1/agents/${a.account_id}/spend-policy`, { key: t.keyOf('@alice'), body: { approvals_required: null } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.approvals_required).toBeUndefined();
    const first = await approve(id, t.keyOf('@alice'));
    expect(first.body).toMatchObject({ status: 'pending_approval', approvals_required: 2 });
    // One held after the change needs one, as before.
    const next = await hold(a);
    expect((await approve(next, t.keyOf('@alice'))).body).toMatchObject({ status: 'approved', approvals_required: 1 });
  });

  it("at the quorum with the agent's balance short: 402, that approval not recorded; funded, the same key completes it", async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50, approvals_required: 2 }, { fund: '10' });
    const id = await hold(a, '75');
    const ops2 = await ownerKey('ops2');
    expect((await approve(id, t.keyOf('@alice'))).status).toBe(200);
    expectApiError(await approve(id, ops2), 402, 'insufficient_balance');
    expect((await read(id, ops2)).body).toMatchObject({ status: 'pending_approval', approvals: [{ key_name: 'seed' }] });
    expect((await t.admin('POST', '/_sandbox/fund', { handle: a.handle, amount: '100' })).status).toBe(200);
    const done = await approve(id, ops2);
    expect(done.body).toMatchObject({ status: 'approved', decided_by: { key_name: 'ops2' } });
    expect(done.body.approvals).toHaveLength(2);
    expect(t.world.store.countTransfers(a.account_id)).toBe(1);
  });
});

describe('a policy without approvals_required', () => {
  it('needs one approval, as before; every view says 1 and lists it', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50 }, { fund: '500' });
    expect((await t.as('@alice').get(`/v1/agents/${a.account_id}/spend-policy`)).body.approvals_required).toBeUndefined();
    const id = await hold(a);
    expect((await read(id, t.keyOf('@alice'))).body).toMatchObject({ approvals_required: 1, approvals: [] });
    const done = await approve(id, t.keyOf('@alice'));
    expect(done.body).toMatchObject({
      status: 'approved', decided_by: { key_name: 'seed', account: '@alice' },
      approvals_required: 1, approvals: [{ key_name: 'seed', account: '@alice', at: done.body.decided_at }],
    });
    expect(t.world.store.countTransfers(a.account_id)).toBe(1);
  });

  it('one decided before quorums existed reads as one approval, its decision', async () => {
    const a = await makeAgent(t, { hitl_threshold_usdc: 50 }, { fund: '500' });
    const id = await hold(a);
    expect((await approve(id, t.keyOf('@alice'))).status).toBe(200);
    // As an older sandbox left it: no quorum fields on the record.
    const h = t.world.store.heldTransaction(id)!;
    delete h.approvals;
    delete h.approvals_required;
    const res = await read(id, t.keyOf('@alice'));
    expect(res.body).toMatchObject({ status: 'approved', approvals_required: 1, approvals: [{ key_name: 'seed', account: '@alice', at: res.body.decided_at }] });
  });
});

describe('approvals_required: validation', () => {
  const bad: Array<[unknown, RegExp]> = [
    [0, /\(got 0\)/],
    [6, /\(got 6\)/],
    [1.5, /\(got 1\.5\)/],
    ['2', /as a JSON number \(got the string "2"\)/],
    [true, /\(got boolean\)/],
  ];
  it.each(bad)('%j on create and on patch: 400 invalid_policy naming the field and the rule', async (value, got) => {
    const created = await t.as('@alice').post('/v1/accounts/me/agents', { name: 'bot', spend_policy: { approvals_required: value } });
    expectApiError(created, 400, 'invalid_policy');
    expect(created.body.error.field).toBe('approvals_required');
    expect(created.body.error.message).toContain(RULE);
    expect(created.body.error.message).toMatch(got);
    const a = await makeAgent(t, { approvals_required: 3 }, { name: 'ok' });
    const patched = await t.call('PATCH', `/v1/agents/${a.account_id}/spend-policy`, { key: t.keyOf('@alice'), body: { approvals_required: value } });
    expectApiError(patched, 400, 'invalid_policy');
    expect(patched.body.error.field).toBe('approvals_required');
    expect(patched.body.error.message).toContain(RULE);
    expect((await t.as('@alice').get(`/v1/agents/${a.account_id}/spend-policy`)).body.approvals_required).toBe(3);
  });

  it('1 and 5 are kept and read back; null clears it (one approval again)', async () => {
    const a = await makeAgent(t, { approvals_required: 5 });
    const path = `/v1/agents/${a.account_id}/spend-policy`;
    expect((await t.as('@alice').get(path)).body.approvals_required).toBe(5);
    const one = await t.call('PATCH', path, { key: t.keyOf('@alice'), body: { approvals_required: 1 } });
    expect(one.body.approvals_required).toBe(1);
    const cleared = await t.call('PATCH', path, { key: t.keyOf('@alice'), body: { approvals_required: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.approvals_required).toBeUndefined();
  });
});

describe('a durable sandbox', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-sbx-quorum-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a partial approval across a restart: the same key is still refused, the second completes it', async () => {
    const statePath = join(dir, 'state.db');
    // No periodic flush: what is on disk was committed by the request itself.
    const first = await startSandbox({ ephemeral: false, statePath }, { internals: { flushEveryMs: 3_600_000 } });
    const a = await makeAgent(first, { hitl_threshold_usdc: 1, approvals_required: 2 }, { fund: '100' });
    const id = await hold(a, '5', first);
    const alice = first.keyOf('@alice');
    const ops2 = await ownerKey('ops2', first);
    const partial = await approve(id, alice, {}, first);
    expect(partial.status, partial.text).toBe(200);
    expect(dbRecords(statePath, 'held').find((h: { transaction_id: string }) => h.transaction_id === id)).toMatchObject({
      status: 'pending_approval', approvals_required: 2, approvals: [{ key_id: expect.any(String), key_name: 'seed', account: '@alice' }],
    });
    const before = (await read(id, alice, first)).body;
    await first.close();

    const second = await startSandbox({ ephemeral: false, statePath });
    try {
      expect((await read(id, alice, second)).body).toEqual(before);
      expectApiError(await approve(id, alice, {}, second), 409, 'already_approved');
      const done = await approve(id, ops2, {}, second);
      expect(done.body).toMatchObject({ status: 'approved', approvals: [{ key_name: 'seed' }, { key_name: 'ops2' }] });
      expect(second.world.store.countTransfers(a.account_id)).toBe(1);
      // The export carries the quorum too (without secrets).
      const exported = await second.admin('GET', '/_sandbox/export');
      expect(exported.body.held.find((h: { transaction_id: string }) => h.transaction_id === id)).toMatchObject({ approvals_required: 2, approvals: [{ key_name: 'seed' }, { key_name: 'ops2' }] });
    } finally {
      await second.close();
    }
  });
});
