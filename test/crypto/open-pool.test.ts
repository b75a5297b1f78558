// The worker threads that open ciphertexts for long lists (src/crypto/open-pool.ts): they repeat
// ciphertext.ts's opening, so their answers are held to decrypt()'s, ciphertext by ciphertext,
// for good ones and every kind of bad one, in the order given.
import { KeyObject } from 'node:crypto';
import type { Worker, WorkerOptions } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CiphertextError, contexts, decrypt, encryptTo } from '../../src/crypto/ciphertext.js';
import { OpenPool, REDO, type OpenResult } from '../../src/crypto/open-pool.js';
import { generateViewingKey, parseDecryptionKey } from '../../src/crypto/viewing-key.js';

const mine = generateViewingKey('test');
const key = (() => {
  const p = parseDecryptionKey(mine.decryptionKey);
  if (!p.ok) throw new Error(p.rule);
  return p.value;
})();
const other = generateViewingKey('test');
const ctx = (i: number) => contexts.transferAmount(`tr_${i}`, 'acc_me');
const flip = (text: string, i: number) => text.slice(0, i) + (text[i] === 'A' ? 'B' : 'A') + text.slice(i + 1);
const zeroEphemeral = Buffer.concat([Buffer.from([1]), Buffer.alloc(32), Buffer.alloc(12), Buffer.alloc(20)]).toString('base64url');

/** What decrypt() makes of a pair on this thread: the plaintext, null for CiphertextError, REDO for any other failure. */
function here(ciphertext: string, context: string): OpenResult {
  try {
    return decrypt(key.keyObject, key.publicKey, ciphertext, context);
  } catch (err) {
    return err instanceof CiphertextError ? null : REDO;
  }
}

let pool: OpenPool | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await pool?.close();
  pool = undefined;
});

/** Records every Worker the pool makes (the real one, through process.getBuiltinModule), its source and options. */
function recordWorkers(): Array<{ worker: Worker; source: string; options: WorkerOptions; exited: Promise<number> }> {
  const made: Array<{ worker: Worker; source: string; options: WorkerOptions; exited: Promise<number> }> = [];
  const real = process.getBuiltinModule.bind(process);
  vi.spyOn(process, 'getBuiltinModule').mockImplementation(((id: string) => {
    const mod = real(id as 'node:worker_threads');
    if (id !== 'node:worker_threads') return mod;
    class Recorded extends mod.Worker {
      constructor(source: string | URL, options: WorkerOptions = {}) {
        super(source, options);
        made.push({ worker: this, source: String(source), options, exited: new Promise((resolve) => this.once('exit', resolve)) });
      }
    }
    return { ...mod, Worker: Recorded };
  }) as typeof process.getBuiltinModule);
  return made;
}

function started(size: number): OpenPool {
  const p = OpenPool.start({ key: key.keyObject, publicKey: key.publicKey, size });
  if (!p) throw new Error('no pool');
  return (pool = p);
}

describe('OpenPool', () => {
  it('answers as decrypt() does, in order, for good ciphertexts and every kind of bad one, spread over the workers', async () => {
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < 240; i++) {
      const good = encryptTo(mine.publicKey, `${i}`, ctx(i));
      const kind = i % 8;
      const ciphertext =
        kind === 1 ? encryptTo(other.publicKey, `${i}`, ctx(i)) // another key
          : kind === 2 ? flip(good, 70) // tampered body
            : kind === 3 ? 'AAAA' // too short
              : kind === 4 ? `C${good.slice(1)}` // unknown version
                : kind === 5 ? zeroEphemeral // the key agreement fails
                  : kind === 6 ? encryptTo(mine.publicKey, 'ünïcode memo ✓', ctx(i))
                    : good;
      pairs.push([ciphertext, kind === 7 ? ctx(i + 1) : ctx(i)]); // 7: another transfer's context
    }
    const p = started(2);
    expect(await p.whenReady()).toBe(true);
    const out = await p.open(pairs);
    expect(out).toEqual(pairs.map(([c, x]) => here(c, x)));
    // Every kind happened, and the work went to both workers.
    expect(new Set(out.map((o) => (o === null ? 'null' : o === REDO ? 'redo' : 'text')))).toEqual(new Set(['null', 'redo', 'text']));
    expect(p.given).toEqual([120, 120]);
  });

  it('nothing is sent before a worker is ready; work owed when the pool closes comes back REDO (for the caller to do itself)', async () => {
    const p = started(2);
    // A worker says it is ready by a message, which cannot have arrived yet.
    expect(p.ready).toBe(false);
    expect(await p.open([[encryptTo(mine.publicKey, '1', ctx(1)), ctx(1)]])).toEqual([REDO]);
    expect(p.given).toEqual([0, 0]);
    await p.whenReady();
    const pairs = Array.from({ length: 400 }, (_, i) => [encryptTo(mine.publicKey, `${i}`, ctx(i)), ctx(i)] as [string, string]);
    const owed = p.open(pairs);
    await p.close();
    const out = await owed;
    // Each worker's run comes back whole: answered, or REDO if the close came first.
    for (const from of [0, 200]) {
      const run = out.slice(from, from + 200);
      expect(run.every((o) => o === REDO) || run.every((o, k) => o === `${from + k}`), JSON.stringify(run.slice(0, 3))).toBe(true);
    }
    expect(p.ready).toBe(false);
    expect(await p.open(pairs.slice(0, 3))).toEqual([REDO, REDO, REDO]);
  });

  it('the key reaches a worker only as the KeyObject in workerData: never in its argv, execArgv, environment (empty) or source', async () => {
    const made = recordWorkers();
    const p = started(2);
    expect(await p.whenReady()).toBe(true);
    expect(made).toHaveLength(2);
    // Every spelling of the secret a worker could be handed as text.
    const secret = key.secret;
    const spellings = [mine.decryptionKey, secret.toString('base64url'), secret.toString('base64'), secret.toString('hex')];
    for (const { source, options } of made) {
      expect(options.argv).toBeUndefined();
      expect(options.execArgv).toBeUndefined();
      expect(options.env).toEqual({});
      const data = options.workerData as { key: unknown; publicKey: unknown };
      expect(Object.keys(data).sort()).toEqual(['key', 'publicKey']);
      expect(data.key).toBeInstanceOf(KeyObject);
      expect(data.key).toBe(key.keyObject);
      const text = JSON.stringify({ source, argv: options.argv, execArgv: options.execArgv, env: options.env, publicKey: data.publicKey });
      for (const s of spellings) expect(text).not.toContain(s);
    }
  });

  it('close() ends every worker, also with work owed', async () => {
    const made = recordWorkers();
    const p = started(2);
    await p.whenReady();
    const owed = p.open(Array.from({ length: 400 }, (_, i) => [encryptTo(mine.publicKey, `${i}`, ctx(i)), ctx(i)] as [string, string]));
    await p.close();
    await owed;
    expect(await Promise.all(made.map((m) => m.exited))).toHaveLength(2);
    for (const { worker } of made) expect(worker.threadId).toBe(-1);
  });
});

