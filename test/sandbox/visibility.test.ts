// Who sees which transfer (docs/sandbox.md), and reads that change nothing answer the same bytes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contexts, decrypt } from '../../src/crypto/ciphertext.js';
import { parseDecryptionKey, type DecryptionKey } from '../../src/crypto/viewing-key.js';
import { makeAgent, startSandbox, type Res, type TestAgent, type TestSandbox } from './helpers.js';

let t: TestSandbox;
let bot: TestAgent;
beforeEach(async () => {
  t = await startSandbox({ blockTimeMs: 1500 });
  bot = await makeAgent(t, { hitl_threshold_usdc: 50 }, { fund: '500' });
});
afterEach(async () => {
  await t.close();
});

function keyOf(handle: string): DecryptionKey {
  const dk = t.sandbox.seeded.find((s) => s.handle === handle)!.decryptionKey!;
  const parsed = parseDecryptionKey(dk);
  if (!parsed.ok) throw new Error(parsed.rule);
  return parsed.value;
}

function expectNotFound(res: Res) {
  expect({ status: res.status, code: res.body?.error?.code }, res.text).toEqual({ status: 404, code: 'transfer_not_found' });
}

const getAs = (key: string, id: string) => t.call('GET', `/v1/transfers/${id}`, { key });
const ids = (res: Res) => res.body.transfers.map((x: { transfer_id: string }) => x.transfer_id);

/** An agent transfer held, then approved by the owner: the transfer id the approval created. */
async function heldThenApproved(memo?: string): Promise<string> {
  const held = await t.call('POST', '/v1/transfers', { key: bot.key, body: { to: '@acme', amount: '75.293816', ...(memo ? { memo } : {}) } });
  expect(held.status, held.text).toBe(202);
  const approved = await t.as('@alice').post(`/v1/agents/transactions/${held.body.transaction_id}/approve`);
  expect(approved.status, approved.text).toBe(200);
  return approved.body.transfer_id;
}

async function direct(): Promise<string> {
  const res = await t.call('POST', '/v1/transfers', { key: bot.key, body: { to: '@acme', amount: '10.738492', memo: 'direct' } });
  expect(res.status, res.text).toBe(201);
  return res.body.transfer_id;
}

describe('GET /v1/transfers/{id}: who sees which transfer', () => {
  for (const [name, make] of [['held, then approved', () => heldThenApproved('approved memo')], ['sent directly (below the threshold)', direct]] as const) {
    describe(`an agent's transfer ${name}`, () => {
      it('the sender (the agent) sees it', async () => {
        const id = await make();
        const res = await getAs(bot.key, id);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ transfer_id: id, from: bot.handle, to: '@acme' });
      });

      it('the recipient sees it', async () => {
        const id = await make();
        const res = await t.as('@acme').get(`/v1/transfers/${id}`);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ transfer_id: id, from: bot.handle });
        const acme = keyOf('@acme');
        expect(decrypt(acme.keyObject, acme.publicKey, res.body.amount_ciphertext, contexts.transferAmount(id, t.accountId('@acme')))).toMatch(/^(75293816|10738492)$/);
      });

      it('the owner of the sending agent sees it, with the amount and memo encrypted to its own key', async () => {
        const id = await make();
        const res = await t.as('@alice').get(`/v1/transfers/${id}`);
        expect(res.status, res.text).toBe(200);
        expect(res.body).toMatchObject({ transfer_id: id, status: 'pending', from: bot.handle, to: '@acme', asset: 'USDG' });
        const alice = keyOf('@alice');
        const owner = t.accountId('@alice');
        const amount = decrypt(alice.keyObject, alice.publicKey, res.body.amount_ciphertext, contexts.transferAmount(id, owner));
        const memo = decrypt(alice.keyObject, alice.publicKey, res.body.memo_ciphertext, contexts.transferMemo(id, owner));
        expect([amount, memo]).toEqual(name === 'sent directly (below the threshold)' ? ['10738492', 'direct'] : ['75293816', 'approved memo']);
        // Not the agent's ciphertext: each reader gets its own.
        expect(res.body.amount_ciphertext).not.toBe((await getAs(bot.key, id)).body.amount_ciphertext);
        expect(res.text).not.toMatch(/75\.293816|75293816|10\.738492|10738492|memo"/);
        await t.sandbox.advance(1500);
        expect((await t.as('@alice').get(`/v1/transfers/${id}`)).body.status).toBe('confirmed');
      });

      it('anyone else gets 404 transfer_not_found (another owner, another agent of the same owner)', async () => {
        const id = await make();
        expectNotFound(await t.as('@bob').get(`/v1/transfers/${id}`));
        const sibling = await makeAgent(t, {}, { name: 'sibling' });
        expectNotFound(await getAs(sibling.key, id));
        const other = await makeAgent(t, {}, { owner: '@acme', name: 'acmebot' });
        expectNotFound(await getAs(other.key, id)); // the recipient's agent is not the recipient
      });

      it("the owner's list shows only its own transfers, not its agent's", async () => {
        const id = await make();
        expect(ids(await t.as('@alice').get('/v1/transfers?limit=100'))).not.toContain(id);
        expect(ids(await t.call('GET', '/v1/transfers?limit=100', { key: bot.key }))).toContain(id);
        expect(ids(await t.as('@acme').get('/v1/transfers?limit=100'))).toContain(id);
      });
    });
  }

  it('the owner of a receiving agent sees a transfer to it; the sender sees it; others do not', async () => {
    const res = await t.as('@acme').send({ to: bot.handle, amount: '3', memo: 'for the bot' });
    expect(res.status, res.text).toBe(201);
    const id = res.body.transfer_id;
    const byOwner = await t.as('@alice').get(`/v1/transfers/${id}`);
    expect(byOwner.status, byOwner.text).toBe(200);
    expect(byOwner.body).toMatchObject({ transfer_id: id, from: '@acme', to: bot.handle });
    const alice = keyOf('@alice');
    expect(decrypt(alice.keyObject, alice.publicKey, byOwner.body.amount_ciphertext, contexts.transferAmount(id, t.accountId('@alice')))).toBe('3000000');
    expect(decrypt(alice.keyObject, alice.publicKey, byOwner.body.memo_ciphertext, contexts.transferMemo(id, t.accountId('@alice')))).toBe('for the bot');
    expect((await getAs(bot.key, id)).status).toBe(200);
    expect((await t.as('@acme').get(`/v1/transfers/${id}`)).status).toBe(200);
    expectNotFound(await t.as('@bob').get(`/v1/transfers/${id}`));
    expect(ids(await t.as('@alice').get('/v1/transfers'))).not.toContain(id);
    // By the agent's address too: the recipient is the agent's account either way.
    const address = t.world.store.accountByHandle(bot.handle)!.public_key;
    const byAddress = await t.as('@acme').send({ to: address, amount: '1' });
    expect((await t.as('@alice').get(`/v1/transfers/${byAddress.body.transfer_id}`)).status).toBe(200);
  });

  it('agent to agent, held then approved and direct: both agents and both owners see it, nobody else', async () => {
    const ops = await makeAgent(t, {}, { owner: '@acme', name: 'ops' });
    const held = await t.call('POST', '/v1/transfers', { key: bot.key, body: { to: ops.handle, amount: '60' } });
    expect(held.status, held.text).toBe(202);
    const approved = await t.as('@alice').post(`/v1/agents/transactions/${held.body.transaction_id}/approve`);
    const sent = await t.call('POST', '/v1/transfers', { key: bot.key, body: { to: ops.handle, amount: '5' } });
    expect(sent.status, sent.text).toBe(201);
    const acme = keyOf('@acme');
    for (const [id, units] of [[approved.body.transfer_id, '60000000'], [sent.body.transfer_id, '5000000']] as const) {
      for (const key of [bot.key, ops.key, t.keyOf('@alice'), t.keyOf('@acme')]) expect((await getAs(key, id)).status).toBe(200);
      // The owner of the receiving agent reads the amount with its own key.
      const byAcme = (await t.as('@acme').get(`/v1/transfers/${id}`)).body;
      expect(decrypt(acme.keyObject, acme.publicKey, byAcme.amount_ciphertext, contexts.transferAmount(id, t.accountId('@acme')))).toBe(units);
      expectNotFound(await t.as('@bob').get(`/v1/transfers/${id}`));
      expectNotFound(await t.as('@oldwallet').get(`/v1/transfers/${id}`));
    }
  });

  it('an owner does not see transfers of agents it does not own, nor of accounts that are not agents', async () => {
    const acmeBot = await makeAgent(t, {}, { owner: '@acme', name: 'ops', fund: '10' });
    const sent = await t.call('POST', '/v1/transfers', { key: acmeBot.key, body: { to: '@bob', amount: '1' } });
    expect(sent.status).toBe(201);
    expectNotFound(await t.as('@alice').get(`/v1/transfers/${sent.body.transfer_id}`));
    const plain = await t.as('@acme').send({ to: '@bob', amount: '1' });
    expectNotFound(await t.as('@alice').get(`/v1/transfers/${plain.body.transfer_id}`));
    expectNotFound(await getAs(bot.key, plain.body.transfer_id));
  });
});

describe('reads that change nothing answer the same bytes', () => {
  const policyPath = () => `/v1/agents/${bot.account_id}/spend-policy`;

  it("the spend policy's daily_spent_ciphertext: re-encrypted only when the spend or the day changes", async () => {
    // Start at 06:00 UTC so that no step crosses midnight by accident.
    const start = t.world.now();
    await t.sandbox.advance(Math.floor(start / 86_400_000) * 86_400_000 + 86_400_000 + 6 * 3_600_000 - start);
    const first = await t.as('@alice').get(policyPath());
    const second = await t.as('@alice').get(policyPath());
    expect(first.status).toBe(200);
    expect(first.body.daily_spent_ciphertext).toEqual(expect.any(String));
    expect(second.text).toBe(first.text);
    await t.sandbox.advance(60_000); // time passes, nothing changes
    expect((await t.as('@alice').get(policyPath())).text).toBe(first.text);

    expect((await t.call('POST', '/v1/transfers', { key: bot.key, body: { to: '@acme', amount: '1' } })).status).toBe(201);
    const afterSpend = await t.as('@alice').get(policyPath());
    expect(afterSpend.body.daily_spent_ciphertext).not.toBe(first.body.daily_spent_ciphertext);
    expect((await t.as('@alice').get(policyPath())).text).toBe(afterSpend.text);
    // Settlement does not change what was spent today: same bytes.
    await t.sandbox.advance(1500);
    expect((await t.as('@alice').get(policyPath())).text).toBe(afterSpend.text);
    // A held transfer does not count, a rejected one neither.
    const held = await t.call('POST', '/v1/transfers', { key: bot.key, body: { to: '@acme', amount: '60' } });
    expect(held.status).toBe(202);
    expect((await t.as('@alice').get(policyPath())).text).toBe(afterSpend.text);

    // A new UTC day: the day and its ciphertext change, then hold still.
    const now = t.world.now();
    await t.sandbox.advance(Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000 - now);
    const nextDay = await t.as('@alice').get(policyPath());
    expect(nextDay.body.daily_spent_day).not.toBe(afterSpend.body.daily_spent_day);
    expect(nextDay.body.daily_spent_ciphertext).not.toBe(afterSpend.body.daily_spent_ciphertext);
    expect((await t.as('@alice').get(policyPath())).text).toBe(nextDay.text);
    // The agent reading its own policy gets the same policy, and today's spend encrypted to its
    // own viewing key (what `transfer send --dry-run` opens), just as stable.
    const own = await t.call('GET', policyPath(), { key: bot.key });
    expect(own.status).toBe(200);
    expect({ ...own.body, daily_spent_ciphertext: undefined }).toEqual({ ...nextDay.body, daily_spent_ciphertext: undefined });
    expect(own.body.daily_spent_ciphertext).not.toBe(nextDay.body.daily_spent_ciphertext);
    expect((await t.call('GET', policyPath(), { key: bot.key })).text).toBe(own.text);
    expect((await t.as('@alice').get(policyPath())).text).toBe(nextDay.text);
    const agentKey = parseDecryptionKey(bot.decryptionKey!);
    if (!agentKey.ok) throw new Error(agentKey.rule);
    const day = own.body.daily_spent_day as string;
    expect(decrypt(agentKey.value.keyObject, agentKey.value.publicKey, own.body.daily_spent_ciphertext, contexts.dailySpent(bot.account_id, day, bot.account_id))).toBe('0');
    // The owner's ciphertext does not open with the agent's key.
    expect(() => decrypt(agentKey.value.keyObject, agentKey.value.publicKey, nextDay.body.daily_spent_ciphertext, contexts.dailySpent(bot.account_id, day, bot.account_id))).toThrow();
  });

  it('balances, transfers (by id and listed), agents and the pending list', async () => {
    const sent = await t.as('@alice').send({ to: '@acme', amount: '2', memo: 'm' });
    const held = await t.call('POST', '/v1/transfers', { key: bot.key, body: { to: '@acme', amount: '60', memo: 'h' } });
    expect(held.status).toBe(202);
    const paths = ['/v1/accounts/me', '/v1/accounts/me/balances', `/v1/transfers/${sent.body.transfer_id}`, '/v1/transfers', '/v1/accounts/me/agents', '/v1/agents/transactions/pending'];
    for (const who of ['@alice', '@acme']) {
      for (const path of paths) {
        const a = await t.as(who).get(path);
        const b = await t.as(who).get(path);
        expect(a.status, `${who} ${path}`).toBe(200);
        expect(b.text, `${who} ${path}`).toBe(a.text);
      }
    }
    // After settlement the transfer changes once, then holds still again.
    await t.sandbox.advance(1500);
    const a = await t.as('@alice').get(`/v1/transfers/${sent.body.transfer_id}`);
    expect(a.body.status).toBe('confirmed');
    expect((await t.as('@alice').get(`/v1/transfers/${sent.body.transfer_id}`)).text).toBe(a.text);
    const balA = await t.as('@acme').get('/v1/accounts/me/balances');
    expect((await t.as('@acme').get('/v1/accounts/me/balances')).text).toBe(balA.text);
  });
});
