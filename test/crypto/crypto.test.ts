import { describe, expect, it } from 'vitest';
import {
  encodeDecryptionKey, generateViewingKey, parseDecryptionKey, parseViewingPublicKey,
} from '../../src/crypto/viewing-key.js';
import { createPublicKey, diffieHellman, hkdfSync } from 'node:crypto';
import { CONTENT_KEY_INFO, contexts, decrypt, deriveContentKey, encryptTo, openWithContentKey, CiphertextError } from '../../src/crypto/ciphertext.js';
import { buildProof, parseProof, verifyProof, ProofError, type BalanceCiphertext } from '../../src/crypto/proof.js';

const alice = generateViewingKey('test');
const aliceKey = (() => {
  const p = parseDecryptionKey(alice.decryptionKey);
  if (!p.ok) throw new Error(p.rule);
  return p.value;
})();
const bob = generateViewingKey('test');
/** Changes one base64url character of a text (to a different one). */
function flip(text: string, i: number): string {
  return text.slice(0, i) + (text[i] === 'A' ? 'B' : 'A') + text.slice(i + 1);
}

describe('decryption key encoding', () => {
  it('round-trips and derives the matching public key', () => {
    expect(alice.decryptionKey).toMatch(/^svc_dk_test_[A-Za-z0-9_-]{50}$/);
    expect(aliceKey.environment).toBe('test');
    expect(aliceKey.publicKey.equals(alice.publicKey)).toBe(true);
    expect(encodeDecryptionKey('test', aliceKey.secret)).toBe(alice.decryptionKey);
    const pk = parseViewingPublicKey(alice.viewingPublicKey);
    expect(pk.ok && pk.value.equals(alice.publicKey)).toBe(true);
  });
  it('keeps test and live apart', () => {
    const live = encodeDecryptionKey('live', aliceKey.secret);
    expect(live.startsWith('svc_dk_live_')).toBe(true);
    // Swapping the prefix breaks the checksum: a test key can never pass as a live one.
    const swapped = live.replace('svc_dk_live_', 'svc_dk_test_');
    expect(parseDecryptionKey(swapped)).toEqual({ ok: false, rule: 'fails its checksum (mistyped?)' });
  });
  it.each([
    ['svc_test_abc', 'must start with svc_dk_test_'],
    [alice.decryptionKey.slice(0, -3), 'wrong length'],
    [flip(alice.decryptionKey, 20), 'checksum'],
    [flip(alice.decryptionKey, alice.decryptionKey.length - 1), 'mistyped'],
  ])('rejects %s', (text, rule) => {
    const r = parseDecryptionKey(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.rule).toContain(rule);
  });
  it('rejects bad public keys', () => {
    expect(parseViewingPublicKey('vpk1_AAAA').ok).toBe(false);
    expect(parseViewingPublicKey('xyz').ok).toBe(false);
  });
});

describe('ciphertexts', () => {
  const ctx = contexts.transferAmount('tr_1', 'acct_a');
  it('round-trips for the recipient, with a fresh ephemeral key each time', () => {
    const c1 = encryptTo(alice.publicKey, '7341902817', ctx);
    const c2 = encryptTo(alice.publicKey, '7341902817', ctx);
    expect(c1).not.toBe(c2);
    expect(decrypt(aliceKey.secret, aliceKey.publicKey, c1, ctx)).toBe('7341902817');
    expect(c1).not.toContain('7341902817');
    expect(Buffer.from(c1, 'base64url').toString('latin1')).not.toContain('7341902817');
  });
  it('rejects the wrong key, the wrong context and any tampering', () => {
    const c = encryptTo(alice.publicKey, '42', ctx);
    const bobKey = parseDecryptionKey(bob.decryptionKey);
    if (!bobKey.ok) throw new Error();
    expect(() => decrypt(bobKey.value.secret, bobKey.value.publicKey, c, ctx)).toThrow(CiphertextError);
    expect(() => decrypt(aliceKey.secret, aliceKey.publicKey, c, contexts.transferAmount('tr_2', 'acct_a'))).toThrow(CiphertextError);
    expect(() => decrypt(aliceKey.secret, aliceKey.publicKey, c, contexts.transferAmount('tr_1', 'acct_b'))).toThrow(CiphertextError);
    const raw = Buffer.from(c, 'base64url');
    for (const i of [0, 5, 40, raw.length - 20, raw.length - 1]) {
      const t = Buffer.from(raw);
      t[i] = t[i]! ^ 1;
      expect(() => decrypt(aliceKey.secret, aliceKey.publicKey, t.toString('base64url'), ctx)).toThrow(CiphertextError);
    }
    expect(() => decrypt(aliceKey.secret, aliceKey.publicKey, 'AAAA', ctx)).toThrow(/too short/);
  });
  it('the content key is HKDF-SHA256 of the X25519 secret (salt: ephemeral || recipient), as hkdfSync computes it', () => {
    for (let i = 0; i < 20; i++) {
      const c = encryptTo(alice.publicKey, '1', ctx);
      const ephemeral = Buffer.from(c, 'base64url').subarray(1, 33);
      const peer = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: ephemeral.toString('base64url') }, format: 'jwk' });
      const shared = diffieHellman({ privateKey: aliceKey.keyObject, publicKey: peer });
      const expected = Buffer.from(hkdfSync('sha256', shared, Buffer.concat([ephemeral, alice.publicKey]), CONTENT_KEY_INFO, 32));
      expect(deriveContentKey(aliceKey.secret, aliceKey.publicKey, c).equals(expected)).toBe(true);
    }
  });
  it('content key opens exactly its own ciphertext', () => {
    const c1 = encryptTo(alice.publicKey, '1', ctx);
    const c2 = encryptTo(alice.publicKey, '1', ctx);
    const k1 = deriveContentKey(aliceKey.secret, aliceKey.publicKey, c1);
    expect(openWithContentKey(k1, c1, ctx)).toBe('1');
    expect(() => openWithContentKey(k1, c2, ctx)).toThrow(CiphertextError);
  });
});

describe('decryption proofs', () => {
  const acct = 'acct_alice';
  const make = (asset: string, version: number, units: string): BalanceCiphertext => ({
    asset, version, ciphertext: encryptTo(alice.publicKey, units, contexts.balance(acct, asset, version)),
  });
  const usdg = make('USDG', 3, '1073194711');
  const usdc = make('USDC', 1, '258163402');
  const current = new Map([['USDG', usdg], ['USDC', usdc]]);

  it('opens the current balances', () => {
    const proof = buildProof(aliceKey.secret, aliceKey.publicKey, [usdg, usdc]);
    expect(Buffer.from(proof, 'base64').toString()).not.toMatch(/1073194711|258163402/);
    expect(verifyProof(acct, parseProof(proof), current)).toEqual(new Map([['USDG', '1073194711'], ['USDC', '258163402']]));
  });
  it('rejects a stale version, another account, another asset and garbage', () => {
    const old = make('USDG', 2, '5');
    const stale = parseProof(buildProof(aliceKey.secret, aliceKey.publicKey, [old]));
    expect(() => verifyProof(acct, stale, current)).toThrow(/version 2/);
    // Same version number but an older ciphertext: the key does not open the current one.
    const replay = parseProof(buildProof(aliceKey.secret, aliceKey.publicKey, [make('USDG', 3, '5')]));
    expect(() => verifyProof(acct, replay, current)).toThrow(ProofError);
    const good = parseProof(buildProof(aliceKey.secret, aliceKey.publicKey, [usdg]));
    expect(() => verifyProof('acct_other', good, current)).toThrow(ProofError);
    const wrongAsset = [{ ...good[0]!, asset: 'USDC', version: 1 }];
    expect(() => verifyProof(acct, wrongAsset, current)).toThrow(ProofError);
    expect(() => parseProof('not base64 json')).toThrow(ProofError);
    expect(() => parseProof(Buffer.from('{"v":2}').toString('base64'))).toThrow(ProofError);
    expect(() => parseProof(42)).toThrow(ProofError);
  });
});

describe('webhook signatures', async () => {
  const { signPayload, verifySignature, newWebhookSecret } = await import('../../src/crypto/webhook-signature.js');
  const { createHmac } = await import('node:crypto');
  it('matches an independent HMAC and rejects any change', () => {
    const secret = newWebhookSecret();
    const body = Buffer.from('{"event":"transfer.confirmed","event_id":"evt_1"}');
    const sig = signPayload(secret, body);
    expect(sig).toBe(createHmac('sha256', secret).update(body).digest('hex'));
    expect(verifySignature(secret, body, sig)).toBe(true);
    expect(verifySignature(secret, body, sig.toUpperCase())).toBe(true);
    expect(verifySignature(secret, Buffer.from('{"event":"transfer.confirmed","event_id":"evt_2"}'), sig)).toBe(false);
    expect(verifySignature(`${secret}x`, body, sig)).toBe(false);
    expect(verifySignature(secret, body, sig.slice(0, 63))).toBe(false);
    expect(verifySignature(secret, body, '')).toBe(false);
    expect(verifySignature(secret, body, 'z'.repeat(64))).toBe(false);
  });
});
