// Content keys made ahead of time, on a worker thread, for recipients encrypted to again and
// again (a busy sandbox encrypts every transfer's amount to the same few viewing keys).
//
// Most of an encryption's cost is its key agreement: a fresh ephemeral X25519 key, ECDH with the
// recipient, HKDF (src/crypto/ciphertext.ts prepareKey). None of it depends on the plaintext, so
// a worker does it in advance and hands back (ephemeral public key, content key) pairs; the encryption
// itself is then one AES-GCM. Nothing about the ciphertexts changes: same wire form, same
// derivation (the worker runs the same HKDF with the same info), decrypted exactly as before.
//
// Rules that keep it as confidential as encrypting on the spot:
// - every pair is taken from its queue once and used for one ciphertext only (`take` removes
//   it), so no two ciphertexts ever share a content key;
// - one ephemeral key may serve several DIFFERENT recipients (as encryptTo allows), never two
//   pairs for the same recipient; the ephemeral secret stays inside the worker and is dropped;
// - the pairs live only in this process's memory (never written, never logged).
//
// The pool is a cache: `take` answers undefined when it has nothing for a recipient (the worker
// has not started, is behind, or failed), and the caller encrypts on the spot as before. The
// worker starts only after a process has asked for MIN_DEMAND keys, so a short-lived sandbox
// (most tests) never starts one, and it never keeps the process alive.
import { Worker } from 'node:worker_threads';
import { CIPHERTEXT_WORKER_SOURCE, type PreparedKey } from '../../crypto/ciphertext.js';

/** Pairs kept ready per recipient in use: refilled below LOW_WATER, ROUNDS pairs per request. */
const LOW_WATER = 512;
const ROUNDS = 256;
/** Keys taken for a recipient (since its last refill) that make it worth preparing keys for. */
const HOT = 16;
/** Requests to the worker in flight at once (two keep it busy while one is being taken in). */
const MAX_IN_FLIGHT = 2;
/** Keys asked for in this process before the worker starts. */
const MIN_DEMAND = 64;
/** Recipients tracked at once (least recently used dropped first). */
const MAX_RECIPIENTS = 256;
const PAIR = 64; // ephemeral public[32] || content key[32]

// The worker: plain node:crypto, no imports from this code base (it runs from a string, so it
// works the same from tsc's output and from the bundle). Per round, one fresh ephemeral key and,
// for each recipient of the request, ECDH + HKDF-SHA256(salt = ephemeral || recipient) exactly
// as src/crypto/ciphertext.ts does.
//
// The ephemeral key: 32 random bytes imported as a private key, its public half read back from
// it (OpenSSL derives it on import): about half the cost of generateKeyPairSync plus
// X25519(secret, 9) as src/crypto/x25519.ts does on the main thread. Node imports a private JWK
// from `d` alone (`x` must only be a string), so `x` is a placeholder, and exports the key with
// its real `x`; a check at start compares this path with the generator's own output and, should a
// node ever differ, the worker uses the generator instead.
//
// HKDF-SHA256 (RFC 5869) for one 32-byte block is two HMACs: PRK = HMAC(salt, shared), then
// HMAC(PRK, info || 0x01). Node's hkdfSync makes a KeyObject and a job for it, about twice the
// cost; a check at start compares the two and, should they ever differ, the worker uses hkdfSync.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHmac, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes } = require('node:crypto');
${CIPHERTEXT_WORKER_SOURCE}
const b64 = (b) => Buffer.from(b).toString('base64url');
const toKey = (raw) => createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: b64(raw) }, format: 'jwk' });
const BASE = toKey(Buffer.concat([Buffer.from([9]), Buffer.alloc(31)]));
const PLACEHOLDER = b64(Buffer.alloc(32));
const fromSecret = (secret) => {
  const privateKey = createPrivateKey({ key: { kty: 'OKP', crv: 'X25519', d: b64(secret), x: PLACEHOLDER }, format: 'jwk' });
  return { privateKey, publicKey: Buffer.from(privateKey.export({ format: 'jwk' }).x, 'base64url') };
};
const hkdfNode = (shared, salt) => Buffer.from(hkdfSync('sha256', shared, salt, CT_INFO, 32));
let hkdf = hkdfNode;
try {
  const shared = randomBytes(32);
  const salt = randomBytes(64);
  if (contentKeyByHmac(shared, salt).equals(hkdfNode(shared, salt))) hkdf = contentKeyByHmac;
} catch {}
const viaGenerator = () => {
  const { privateKey } = generateKeyPairSync('x25519');
  return { privateKey, publicKey: diffieHellman({ privateKey, publicKey: BASE }) };
};
let viaSecret = false;
try {
  const der = generateKeyPairSync('x25519', { privateKeyEncoding: { format: 'der', type: 'pkcs8' }, publicKeyEncoding: { format: 'der', type: 'spki' } });
  viaSecret = fromSecret(der.privateKey.subarray(der.privateKey.length - 32)).publicKey.equals(der.publicKey.subarray(der.publicKey.length - 32));
} catch {}
const probe = viaSecret ? fromSecret(randomBytes(32)) : viaGenerator();
parentPort.on('message', ({ id, recipients, rounds }) => {
  // A key no agreement works with gets nothing (encrypting to it fails on the spot, as before).
  const keys = recipients.map((r) => {
    try {
      const raw = Buffer.from(r, 'base64url');
      const key = toKey(raw);
      diffieHellman({ privateKey: probe.privateKey, publicKey: key });
      return { raw, key };
    } catch {
      return undefined;
    }
  });
  const out = keys.map((k) => Buffer.alloc(k ? rounds * ${PAIR} : 0));
  const secrets = viaSecret ? randomBytes(32 * rounds) : undefined; // one call into the RNG per request
  for (let i = 0; i < rounds; i++) {
    const eph = secrets ? fromSecret(secrets.subarray(32 * i, 32 * i + 32)) : viaGenerator();
    keys.forEach((k, j) => {
      if (!k) return;
      const shared = diffieHellman({ privateKey: eph.privateKey, publicKey: k.key });
      const contentKey = hkdf(shared, Buffer.concat([eph.publicKey, k.raw]));
      eph.publicKey.copy(out[j], i * ${PAIR});
      contentKey.copy(out[j], i * ${PAIR} + 32);
    });
  }
  parentPort.postMessage({ id, pairs: out }, out.filter((b) => b.length).map((b) => b.buffer));
});
`;

interface Queue {
  /** The recipient's public key, base64url (what the worker is sent: a string clones cheaply). */
  id: string;
  /** Chunks of pairs not yet taken, oldest first; `offset` into the first. */
  chunks: Buffer[];
  offset: number;
  ready: number;
  /** Pairs asked of the worker and not yet back. */
  coming: number;
  /** Taken since its last refill request (only recipients in use, HOT or more, are refilled). */
  demand: number;
}

export class KeyPool {
  private readonly queues = new Map<string, Queue>();
  private worker: Worker | undefined;
  private failed = false;
  private asked = 0;
  private inFlight = 0;
  private nextId = 0;
  private readonly pending = new Map<number, Queue[]>();
  private waiters: Array<() => void> = [];
  /** Each recipient key's id (the same bytes come back for every transfer: viewing.ts keeps them per account). */
  private readonly ids = new WeakMap<Uint8Array, string>();
  /** Keys handed out ready-made, and asked for when none was ready. */
  private readonly counts = { prepared: 0, missed: 0 };

  constructor(private readonly opts: { minDemand?: number } = {}) {}

  /** How many keys were handed out ready-made, and how many were asked for when none was ready. */
  get stats(): { prepared: number; missed: number; workerRunning: boolean } {
    return { ...this.counts, workerRunning: this.worker !== undefined };
  }

  /** Resolves once no refill is in flight (tests wait on this, never on time). */
  idle(): Promise<void> {
    if (this.inFlight === 0 || !this.worker) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** A prepared key for one ciphertext to `recipient`, used up by this call; undefined when none is ready. */
  take(recipient: Uint8Array): PreparedKey | undefined {
    if (this.failed) return undefined;
    let id = this.ids.get(recipient);
    if (id === undefined) this.ids.set(recipient, (id = Buffer.from(recipient.buffer, recipient.byteOffset, recipient.byteLength).toString('base64url')));
    let q = this.queues.get(id);
    if (q) {
      this.queues.delete(id); // most recently used last
    } else {
      if (this.queues.size >= MAX_RECIPIENTS) this.queues.delete(this.queues.keys().next().value as string);
      q = { id, chunks: [], offset: 0, ready: 0, coming: 0, demand: 0 };
    }
    this.queues.set(id, q);
    q.demand++;
    this.asked++;
    let out: PreparedKey | undefined;
    if (q.ready > 0) {
      const chunk = q.chunks[0]!;
      out = { ephemeralPublic: chunk.subarray(q.offset, q.offset + 32), contentKey: chunk.subarray(q.offset + 32, q.offset + PAIR) };
      q.offset += PAIR;
      q.ready--;
      if (q.offset >= chunk.length) {
        q.chunks.shift();
        q.offset = 0;
      }
    }
    if (out) this.counts.prepared++;
    else this.counts.missed++;
    if (q.ready + q.coming < LOW_WATER && q.demand >= HOT) this.refill();
    return out;
  }

  /** Stops the worker and drops every pair (tests). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.queues.clear();
    this.pending.clear();
    this.inFlight = 0;
    this.wake();
    if (w) await w.terminate();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private refill(): void {
    if (this.inFlight >= MAX_IN_FLIGHT || this.asked < (this.opts.minDemand ?? MIN_DEMAND)) return;
    const worker = this.start();
    if (!worker) return;
    const wanted: Queue[] = [];
    for (const q of this.queues.values()) {
      if (q.demand >= HOT && q.ready + q.coming < LOW_WATER) wanted.push(q);
    }
    if (!wanted.length) return;
    const id = this.nextId++;
    for (const q of wanted) {
      q.coming += ROUNDS;
      q.demand = 0;
    }
    this.pending.set(id, wanted);
    this.inFlight++;
    worker.postMessage({ id, recipients: wanted.map((q) => q.id), rounds: ROUNDS });
  }

  private start(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    try {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      worker.on('message', (m: { id: number; pairs: Uint8Array[] }) => this.receive(m));
      // A worker that fails leaves the pool empty: every encryption is made on the spot.
      worker.on('error', () => this.fail());
      worker.on('exit', () => this.fail());
      worker.unref(); // a pool never keeps a process alive (after the listeners: adding one refs it again)
      this.worker = worker;
      return worker;
    } catch {
      this.fail();
      return undefined;
    }
  }

  private fail(): void {
    if (!this.worker) return; // closed on purpose
    this.failed = true;
    this.worker = undefined;
    this.queues.clear();
    this.pending.clear();
    this.wake();
  }

  private receive({ id, pairs }: { id: number; pairs: Uint8Array[] }): void {
    const queues = this.pending.get(id);
    if (!queues) return;
    this.pending.delete(id);
    this.inFlight--;
    queues.forEach((q, i) => {
      if (this.queues.get(q.id) !== q) return; // dropped meanwhile
      const chunk = Buffer.from(pairs[i]!.buffer, pairs[i]!.byteOffset, pairs[i]!.byteLength);
      q.coming -= ROUNDS;
      if (!chunk.length) return;
      q.chunks.push(chunk);
      q.ready += chunk.length / PAIR;
    });
    this.refill();
    if (this.inFlight === 0) this.wake();
  }
}

/** The process's pool (one worker however many sandboxes run in it). */
export const keyPool = new KeyPool();
