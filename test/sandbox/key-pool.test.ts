// Content keys made ahead of time on a worker thread (src/sandbox/crypto/key-pool.ts): the ciphertexts
// made with them are the ones encryptTo makes (same wire form, same derivation), every key is
// used once, and a process whose pool has started still exits by itself.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { contexts, decrypt, deriveContentKey, encryptWithPreparedKey, openWithContentKey } from '../../src/crypto/ciphertext.js';
import { KeyPool } from '../../src/sandbox/crypto/key-pool.js';
import { generateViewingKey, parseDecryptionKey } from '../../src/crypto/viewing-key.js';
import { spawnSandbox, type SpawnedSandbox } from '../helpers/run.js';

const viewingKey = () => {
  const vk = generateViewingKey('test');
  const dk = parseDecryptionKey(vk.decryptionKey);
  if (!dk.ok) throw new Error(dk.rule);
  return dk.value;
};

describe('the key pool', () => {
  const pool = new KeyPool({ minDemand: 1 });
  afterAll(() => pool.close());

  it('hands out each prepared key once; its ciphertexts open with the viewing key exactly as encryptTo’s do', async () => {
    const alice = viewingKey();
    const bob = viewingKey();
    // Asked for often enough, both recipients are prepared for (by the same worker requests).
    for (let i = 0; i < 32; i++) {
      expect(pool.take(alice.publicKey)).toBeUndefined();
      expect(pool.take(bob.publicKey)).toBeUndefined();
    }
    await pool.idle();
    const seen = new Set<string>();
    for (const [who, other] of [[alice, bob], [bob, alice]] as const) {
      const ephemerals = new Set<string>();
      for (let i = 0; i < 200; i++) {
        const prepared = pool.take(who.publicKey);
        expect(prepared, `key ${i}`).toBeDefined();
        const ctx = contexts.transferAmount(`tr_${i}`, 'acct_x');
        const ciphertext = encryptWithPreparedKey(prepared!, String(1_000_000 + i), ctx);
        expect(decrypt(who.secret, who.publicKey, ciphertext, ctx)).toBe(String(1_000_000 + i));
        // A decryption proof carries this content key: derived from the ciphertext, it is the prepared one.
        expect(deriveContentKey(who.keyObject, who.publicKey, ciphertext).equals(Buffer.from(prepared!.contentKey))).toBe(true);
        expect(openWithContentKey(prepared!.contentKey, ciphertext, ctx)).toBe(String(1_000_000 + i));
        expect(() => decrypt(other.secret, other.publicKey, ciphertext, ctx)).toThrow();
        // Never the same ephemeral key twice for one recipient, never the same content key at all.
        const eph = Buffer.from(prepared!.ephemeralPublic).toString('hex');
        expect(ephemerals.has(eph)).toBe(false);
        ephemerals.add(eph);
        const key = Buffer.from(prepared!.contentKey).toString('hex');
        expect(seen.has(key)).toBe(false);
        seen.add(key);
      }
    }
    expect(pool.stats).toMatchObject({ prepared: 400, missed: 64, workerRunning: true });
  });

  it('a key no agreement works with gets nothing, and does not stop the others', async () => {
    const lowOrder = Buffer.alloc(32); // u = 0: every shared secret would be zero
    const dave = viewingKey();
    for (let i = 0; i < 32; i++) {
      pool.take(lowOrder);
      pool.take(dave.publicKey);
    }
    await pool.idle();
    expect(pool.take(lowOrder)).toBeUndefined();
    expect(pool.take(dave.publicKey)).toBeDefined();
    expect(pool.stats.workerRunning).toBe(true);
  });

  it('prepares nothing for a recipient asked for only now and then', async () => {
    const carol = viewingKey();
    for (let i = 0; i < 3; i++) expect(pool.take(carol.publicKey)).toBeUndefined();
    await pool.idle();
    expect(pool.take(carol.publicKey)).toBeUndefined();
  });
});

describe('a sandbox process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-keypool-'));
  let live: SpawnedSandbox | undefined;
  afterAll(async () => {
    await live?.stop('SIGKILL'); // only if it is still there (a failed test)
    rmSync(dir, { recursive: true, force: true });
  });

  it('whose pool has started still stops on SIGTERM (the worker never keeps it alive)', async () => {
    live = await spawnSandbox(['sandbox', 'start', '--port', '0', '--ephemeral', '--block-time', '1ms', '--quiet'], { SVC_CONFIG_DIR: dir, NO_COLOR: '1' });
    const key = (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: { sandbox: { apiKey: string } } }).profiles.sandbox.apiKey;
    const pool = new Pool(live.url, { connections: 8 });
    try {
      // 200 transfers: 400 amount ciphertexts to two viewing keys, far past where the pool starts.
      for (let i = 0; i < 200; i++) {
        const res = await pool.request({
          method: 'POST', path: '/v1/transfers', body: JSON.stringify({ to: '@acme', amount: '0.01' }),
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        });
        expect(res.statusCode).toBe(201);
        await res.body.dump();
      }
    } finally {
      await pool.close();
    }
    expect(await live.stop('SIGTERM')).toBe(0);
  });
});
