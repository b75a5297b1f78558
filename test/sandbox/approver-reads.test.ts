// What the sandbox gives an approver beyond the spec (docs/sandbox.md): a reject's `reason`, kept
// on the held transaction (1 to 500 characters, else 400 invalid_request naming the field, and
// nothing changes), and what an owner reads of its agent's own account: its balances, encrypted
// to the owner, and its transfers. No plaintext amount in any of it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contexts, decrypt } from '../../src/crypto/ciphertext.js';
import { parseDecryptionKey } from '../../src/crypto/viewing-key.js';
import { expectApiError, makeAgent, startSandbox, type TestAgent, type TestSandbox } from './helpers.js';

let t: TestSandbox;
let bot: TestAgent;
beforeEach(async () => {
  t = await startSandbox();
  bot = await makeAgent(t, { hitl_threshold_usdc: 50 }, { fund: '7319.4711' });
});
afterEach(async () => {
  await t?.close();
});

async function hold(amount = '60'): Promise<string> {
  const res = await t.call('POST', '/v1/transfers', { key: bot.key, body: { to: '@acme', amount } });
  expect(res.status, res.text).toBe(202);
  return res.body.transaction_id as string;
}

const reject = (id: string, body?: unknown) => t.as('@alice').post(`/v1/agents/transactions/${id}/reject`, body);
const heldRecord = (id: string) => t.world.store.heldTransaction(id)!;

describe('reject with a reason', () => {
  it('keeps the reason on the held transaction and answers it; without one there is none', async () => {
    const id = await hold();
    const res = await reject(id, { reason: 'not this vendor — ask finance' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ transaction_id: id, status: 'rejected', reason: 'not this vendor — ask finance' });
    expect(heldRecord(id).reason).toBe('not this vendor — ask finance');

    const plain = await hold();
    const res2 = await reject(plain, {});
    expect(res2.status).toBe(200);
    expect(res2.body.reason).toBeUndefined();
    expect(heldRecord(plain).reason).toBeUndefined();
    const empty = await hold();
    expect((await reject(empty)).status).toBe(200); // no body at all, as before
    // An approve body is not read: a reason there (even one too long) changes nothing.
    const approved = await hold();
    const res3 = await t.as('@alice').post(`/v1/agents/transactions/${approved}/approve`, { reason: 'x'.repeat(600) });
    expect(res3.status, res3.text).toBe(200);
    expect(heldRecord(approved).reason).toBeUndefined();
  });

  it('500 characters (counted as a person counts them) are kept; 501, empty or not a string: 400 naming the field, still pending', async () => {
    const id = await hold();
    for (const bad of ['', 'x'.repeat(501), '😀'.repeat(501), 42, null, ['why'], { text: 'why' }]) {
      const res = await reject(id, { reason: bad });
      expectApiError(res, 400, 'invalid_request');
      expect(res.body.error.message).toBe('reason must be a string of 1 to 500 characters');
      expect(res.body.error.field).toBe('reason');
    }
    expect(heldRecord(id).status).toBe('pending_approval');
    const ok = await reject(id, { reason: '😀'.repeat(500) }); // 1000 UTF-16 units, 500 characters
    expect(ok.status, ok.text).toBe(200);
    expect(heldRecord(id).reason).toBe('😀'.repeat(500));
  });
});

describe("what an owner reads of its agent's account", () => {
  const aliceDk = () => {
    const dk = t.sandbox.seeded.find((s) => s.handle === '@alice')?.decryptionKey;
    const parsed = dk ? parseDecryptionKey(dk) : undefined;
    return parsed?.ok ? parsed.value : undefined;
  };

  it('balances: encrypted to the owner (bound to agent, asset, version and reader), never in plaintext', async () => {
    const res = await t.as('@alice').get(`/v1/agents/${bot.account_id}/balances`);
    expect(res.status, res.text).toBe(200);
    expect(res.text).not.toMatch(/7319\.4711|7319471100/);
    const entry = res.body.balances.find((b: { asset: string }) => b.asset === 'USDG');
    expect(entry).toMatchObject({ asset: 'USDG', nonzero: true });
    const dk = aliceDk();
    if (!dk) return; // a sandbox without viewing keys sends no ciphertext
    const aliceId = t.accountId('@alice');
    expect(decrypt(dk.keyObject, dk.publicKey, entry.ciphertext, contexts.agentBalance(bot.account_id, 'USDG', entry.version, aliceId))).toBe('7319471100');
    // Bound to its context: read as another agent's, or as another reader's, it does not open.
    expect(() => decrypt(dk.keyObject, dk.publicKey, entry.ciphertext, contexts.agentBalance(bot.account_id, 'USDC', entry.version, aliceId))).toThrow();
    expect(() => decrypt(dk.keyObject, dk.publicKey, entry.ciphertext, contexts.balance(bot.account_id, 'USDG', entry.version))).toThrow();
  });

  it('transfers: the agent\'s, paged like GET /v1/transfers, with the owner\'s ciphertexts', async () => {
    const low = await makeAgent(t, {}, { name: 'payer', fund: '100' });
    for (const amount of ['1', '2', '3']) expect((await t.call('POST', '/v1/transfers', { key: low.key, body: { to: '@bob', amount } })).status).toBe(201);
    const res = await t.as('@alice').get(`/v1/agents/${low.account_id}/transfers?limit=2`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ limit: 2, offset: 0, has_more: true });
    expect(res.body.transfers.map((x: { to: string }) => x.to)).toEqual(['@bob', '@bob']);
    expect(res.body.transfers[0].from).toBe(low.handle);
    if (aliceDk()) expect(res.body.transfers[0].amount_ciphertext).toEqual(expect.any(String));
    // The owner's own list does not carry them (as before): this is where they are read.
    const mine = await t.as('@alice').get('/v1/transfers');
    expect(mine.body.transfers.filter((x: { from: string }) => x.from === low.handle)).toEqual([]);
  });

  it('another account, or an unknown id: 403 not_agent_owner; the agent itself may read its own', async () => {
    for (const path of ['balances', 'transfers']) {
      expectApiError(await t.as('@bob').get(`/v1/agents/${bot.account_id}/${path}`), 403, 'not_agent_owner');
      expectApiError(await t.as('@alice').get(`/v1/agents/acct_nope/${path}`), 403, 'not_agent_owner');
      expect((await t.call('GET', `/v1/agents/${bot.account_id}/${path}`, { key: bot.key })).status).toBe(200);
    }
  });
});
