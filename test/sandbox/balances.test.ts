// GET /v1/accounts/me/balances: ciphertexts without a proof, amounts with a valid one, and
// 422 decryption_proof_invalid for old versions, other accounts and garbage.
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contexts, decrypt } from '../../src/crypto/ciphertext.js';
import { buildProof } from '../../src/crypto/proof.js';
import { parseDecryptionKey, type DecryptionKey } from '../../src/crypto/viewing-key.js';
import { checkAnswer, startSandbox, type TestSandbox } from './helpers.js';

let t: TestSandbox;
const dk = new Map<string, DecryptionKey>();

beforeAll(async () => {
  t = await startSandbox();
  for (const s of t.sandbox.seeded) {
    const p = parseDecryptionKey(s.decryptionKey!);
    if (!p.ok) throw new Error(p.rule);
    dk.set(s.handle, p.value);
  }
});
afterAll(() => t.close());

interface Entry { asset: string; nonzero?: boolean; ciphertext?: string; version?: number; amount?: string }

/** GET with an optional JSON body (fetch refuses a body on GET; undici's request does not). */
async function balances(handle: string, body?: unknown): Promise<{ status: number; body: { balances?: Entry[]; error?: { code: string; message: string } } }> {
  const res = await undiciRequest(`${t.sandbox.url}/v1/accounts/me/balances`, {
    method: 'GET',
    headers: { authorization: `Bearer ${t.keyOf(handle)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  checkAnswer('GET', '/v1/accounts/me/balances', res.statusCode, text);
  return { status: res.statusCode, body: JSON.parse(text) as never };
}

const proofFor = (handle: string, entries: Entry[]) => {
  const key = dk.get(handle)!;
  return buildProof(key.keyObject, key.publicKey, entries.map((e) => ({ asset: e.asset, version: e.version!, ciphertext: e.ciphertext! })));
};

describe('balances', () => {
  it('without a proof: nonzero and a ciphertext per asset, no amount', async () => {
    const r = await balances('@alice');
    expect(r.status).toBe(200);
    expect(r.body.balances!.map((b) => [b.asset, b.nonzero, typeof b.ciphertext, b.version])).toEqual([
      ['USDG', true, 'string', 1], ['USDC', true, 'string', 1],
    ]);
    // Every field but the (random) ciphertext is known, so no amount hides in one. (The seeded
    // 1000 and 250 are too round to search the ciphertexts for: they turn up by chance.)
    expect(Object.keys(r.body)).toEqual(['balances']);
    expect(r.body.balances!.map(({ ciphertext: _, ...known }) => known)).toEqual([{ asset: 'USDG', nonzero: true, version: 1 }, { asset: 'USDC', nonzero: true, version: 1 }]);
    expect(JSON.stringify(r.body)).not.toMatch(/amount/);
    // The ciphertext opens with @alice's decryption key, bound to her account, asset and version.
    const usdg = r.body.balances![0]!;
    const key = dk.get('@alice')!;
    expect(decrypt(key.keyObject, key.publicKey, usdg.ciphertext!, contexts.balance(t.accountId('@alice'), 'USDG', 1))).toBe('1000000000');
  });

  it('with a valid proof: the amounts', async () => {
    const { body } = await balances('@alice');
    const r = await balances('@alice', { decryption_proof: proofFor('@alice', body.balances!) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ balances: [{ asset: 'USDG', amount: '1000.00' }, { asset: 'USDC', amount: '250.00' }] });
  });

  it('re-encrypts at every change: a proof for the old version is refused', async () => {
    const before = (await balances('@alice')).body.balances!;
    expect((await t.as('@alice').send({ to: '@acme', amount: '1.25' })).status).toBe(201);
    const after = (await balances('@alice')).body.balances!;
    expect(after[0]!.version).toBe(before[0]!.version! + 1);
    expect(after[0]!.ciphertext).not.toBe(before[0]!.ciphertext);
    const stale = await balances('@alice', { decryption_proof: proofFor('@alice', [before[0]!]) });
    expect(stale.status).toBe(422);
    expect(stale.body.error!.code).toBe('decryption_proof_invalid');
    const fresh = await balances('@alice', { decryption_proof: proofFor('@alice', [after[0]!]) });
    expect(fresh.body).toEqual({ balances: [{ asset: 'USDG', amount: '998.75' }] });
  });

  it('refuses a proof made for another account, a forged key, and garbage', async () => {
    const acme = (await balances('@acme')).body.balances!;
    const foreign = await balances('@alice', { decryption_proof: proofFor('@acme', acme) });
    expect([foreign.status, foreign.body.error!.code]).toEqual([422, 'decryption_proof_invalid']);
    const alice = (await balances('@alice')).body.balances!;
    // @acme's key cannot derive a key that opens @alice's ciphertext.
    const forged = await balances('@alice', { decryption_proof: proofFor('@acme', alice) });
    expect(forged.status).toBe(422);
    for (const garbage of ['', 'not-base64!', Buffer.from('{"v":1,"balances":[]}').toString('base64'), 42]) {
      const r = await balances('@alice', { decryption_proof: garbage });
      expect([r.status, r.body.error!.code], String(garbage)).toEqual([422, 'decryption_proof_invalid']);
    }
    expect((await balances('@alice', [1, 2])).status).toBe(400);
  });

  it('401 without a valid key, 403 kyc_required for an unverified account', async () => {
    const res = await undiciRequest(`${t.sandbox.url}/v1/accounts/me/balances`, { headers: { authorization: 'Bearer svc_test_nope0000000000000000' } });
    expect(res.statusCode).toBe(401);
    const text = await res.body.text();
    checkAnswer('GET', '/v1/accounts/me/balances', res.statusCode, text);
    expect((JSON.parse(text) as { error: { code: string } }).error.code).toBe('unauthorized');
    const bob = await balances('@bob');
    expect([bob.status, bob.body.error!.code]).toEqual([403, 'kyc_required']);
  });

  it('transfers carry amount and memo ciphertexts for each party, each opening only with its own key', async () => {
    const sent = await t.as('@alice').send({ to: '@acme', amount: '3.5', memo: 'rent' });
    const id = sent.body.transfer_id as string;
    expect(sent.body.amount_ciphertext).toEqual(expect.any(String));
    const theirs = await t.as('@acme').get(`/v1/transfers/${id}`);
    expect(theirs.body.amount_ciphertext).not.toBe(sent.body.amount_ciphertext);
    const a = dk.get('@alice')!;
    const b = dk.get('@acme')!;
    expect(decrypt(a.keyObject, a.publicKey, sent.body.amount_ciphertext, contexts.transferAmount(id, t.accountId('@alice')))).toBe('3500000');
    expect(decrypt(b.keyObject, b.publicKey, theirs.body.memo_ciphertext, contexts.transferMemo(id, t.accountId('@acme')))).toBe('rent');
    expect(() => decrypt(b.keyObject, b.publicKey, sent.body.amount_ciphertext, contexts.transferAmount(id, t.accountId('@alice')))).toThrow();
  });
});
