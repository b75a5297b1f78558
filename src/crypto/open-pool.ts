// Opening many ciphertexts on worker threads (`transfer ls --all --decrypt`: one X25519 agreement
// per row, ~60 µs each, where everything else a row costs is a few µs). The caller hands over
// (ciphertext, context) pairs in order and gets back, in the same order, for each one:
// - the plaintext;
// - null where it does not open here: exactly where decrypt() throws CiphertextError (too short,
//   unknown version, wrong key or context), which LocalReader turns into "not readable";
// - REDO where anything else went wrong (a key agreement that fails, a worker that died): the
//   caller opens that one on its own thread with LocalReader, so that it fails exactly as before.
//
// The key: the worker gets the reader's private KeyObject through workerData (cloned in memory by
// Node; its bytes never become a JS value there), never through argv, the environment, a file or a
// log. A worker keeps the process alive only while it starts or owes an answer; close() ends them.
//
// The worker runs from a string with plain node:crypto and no import from this code base, so it
// is the same from tsc's output, from the bundle and from an installed package (nothing to find on
// disk). It repeats ciphertext.ts's opening (split, X25519, HKDF-SHA256, AES-256-GCM) with that
// file's constants and content-key derivation (CIPHERTEXT_WORKER_SOURCE): a test holds its
// answers to decrypt()'s on good and bad ciphertexts.
import type { KeyObject } from 'node:crypto';
import type { Worker as WorkerType } from 'node:worker_threads';
import { CIPHERTEXT_WORKER_SOURCE } from './ciphertext.js';

/** An answer that says: open this one on the caller's thread (see above). */
export const REDO = 0;
export type OpenResult = string | null | typeof REDO;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createDecipheriv, createHmac, createPublicKey, diffieHellman } = require('node:crypto');
${CIPHERTEXT_WORKER_SOURCE}
const { key, publicKey } = workerData;
const recipient = Buffer.from(publicKey);
function open(text, context) {
  const raw = Buffer.from(text, 'base64url');
  if (raw.length < CT_HEADER_LEN + CT_TAG_LEN || raw[0] !== CT_VERSION) return null;
  const ephemeral = raw.subarray(1, 33);
  let contentKey;
  try {
    // The ephemeral key is used once: imported without the cache the main thread keeps for recipients.
    const peer = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: ephemeral.toString('base64url') }, format: 'jwk' });
    const shared = diffieHellman({ privateKey: key, publicKey: peer });
    contentKey = contentKeyByHmac(shared, Buffer.concat([ephemeral, recipient]));
  } catch {
    return ${REDO};
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', contentKey, raw.subarray(33, CT_HEADER_LEN));
    decipher.setAAD(Buffer.concat([CT_AAD_PREFIX, raw.subarray(0, CT_HEADER_LEN), Buffer.from(context, 'utf8')]));
    decipher.setAuthTag(raw.subarray(raw.length - CT_TAG_LEN));
    return Buffer.concat([decipher.update(raw.subarray(CT_HEADER_LEN, raw.length - CT_TAG_LEN)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
parentPort.on('message', ({ id, pairs }) => {
  const out = new Array(pairs.length / 2);
  for (let i = 0; i < out.length; i++) {
    try {
      out[i] = open(pairs[2 * i], pairs[2 * i + 1]);
    } catch {
      out[i] = ${REDO};
    }
  }
  parentPort.postMessage({ id, out });
});
parentPort.postMessage({ ready: true });
`;

/**
 * A worker keeps nothing between jobs: what it allocates is garbage at once. A small young
 * generation (V8 grows it to 16 MB and more under a high allocation rate) keeps each worker's
 * memory near its start-up size (~9 MB): about 5 MB less per worker, for the same time.
 */
const LIMITS = { maxYoungGenerationSizeMb: 2 };

interface Slot {
  worker: WorkerType;
  ready: boolean;
  /** Ready, or gone: the worker has said which. */
  settled: boolean;
  /** Jobs sent and not answered: settled with REDO if the worker dies. */
  pending: Map<number, (out: OpenResult[]) => void>;
  /** Ciphertexts this worker has been given (tests count them). */
  given: number;
}

export interface OpenPoolOptions {
  /** The reader's private key and its public half (the HKDF salt names the recipient). */
  key: KeyObject;
  publicKey: Uint8Array;
  /** Worker threads to start. */
  size: number;
}

export class OpenPool {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private closed = false;
  private waiters: Array<() => void> = [];

  private constructor(opts: OpenPoolOptions) {
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    for (let i = 0; i < opts.size; i++) {
      let worker: WorkerType;
      try {
        worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { key: opts.key, publicKey: opts.publicKey }, env: {}, stdout: true, stderr: true, resourceLimits: LIMITS });
      } catch (err) {
        if (i === 0) throw err;
        break; // fewer workers than asked for
      }
      const slot: Slot = { worker, ready: false, settled: false, pending: new Map(), given: 0 };
      worker.on('message', (m: { ready?: true; id?: number; out?: OpenResult[] }) => {
        if (m.ready) {
          slot.ready = true;
          if (slot.pending.size === 0) worker.unref();
          this.settle(slot);
        } else slot.pending.get(m.id!)?.(m.out!);
      });
      // A worker that fails or exits answers what it still owed with REDO, and gets nothing more.
      const lost = () => this.lose(slot);
      worker.on('error', lost);
      worker.on('exit', lost);
      this.slots.push(slot);
    }
  }

  /** Starts `size` workers; undefined when none can be started (the caller opens everything itself). */
  static start(opts: OpenPoolOptions): OpenPool | undefined {
    try {
      return new OpenPool(opts);
    } catch {
      return undefined;
    }
  }

  /** Whether any worker is ready to take work (after they all fail, the caller works alone). */
  get ready(): boolean {
    return this.slots.some((s) => s.ready);
  }

  /** Resolves once every worker is ready or gone (a worker starts in tens of milliseconds): whether any is ready. */
  whenReady(): Promise<boolean> {
    if (this.slots.every((s) => s.settled)) return Promise.resolve(this.ready);
    return new Promise((resolve) => this.waiters.push(() => resolve(this.ready)));
  }

  /** Ciphertexts given to each worker so far. */
  get given(): number[] {
    return this.slots.map((s) => s.given);
  }

  /**
   * Opens each (ciphertext, context) pair, split in contiguous runs over the ready workers;
   * answers in the order given. Everything is REDO when no worker is ready.
   */
  open(pairs: ReadonlyArray<readonly [ciphertext: string, context: string]>): Promise<OpenResult[]> {
    const ready = this.slots.filter((s) => s.ready);
    if (!ready.length || !pairs.length) return Promise.resolve(pairs.map(() => REDO));
    const per = Math.ceil(pairs.length / ready.length);
    const parts: Array<Promise<OpenResult[]>> = [];
    for (let from = 0, k = 0; from < pairs.length; from += per, k++) {
      const run = pairs.slice(from, from + per);
      parts.push(this.send(ready[k]!, run));
    }
    return Promise.all(parts).then((outs) => outs.flat());
  }

  /** Ends the workers; what they still owed is answered with REDO. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate().catch(() => {})));
    for (const s of this.slots) this.lose(s);
  }

  private send(slot: Slot, run: ReadonlyArray<readonly [string, string]>): Promise<OpenResult[]> {
    const id = this.nextId++;
    const flat: string[] = [];
    for (const [ciphertext, context] of run) flat.push(ciphertext, context);
    slot.given += run.length;
    // A worker with work owed keeps the process alive (someone awaits it); an idle one never does.
    if (slot.pending.size === 0) slot.worker.ref();
    return new Promise((resolve) => {
      slot.pending.set(id, (out) => {
        slot.pending.delete(id);
        if (slot.pending.size === 0) slot.worker.unref();
        resolve(out.length === run.length ? out : run.map(() => REDO));
      });
      try {
        slot.worker.postMessage({ id, pairs: flat });
      } catch {
        this.lose(slot);
      }
    });
  }

  private settle(slot: Slot): void {
    slot.settled = true;
    if (!this.slots.every((s) => s.settled)) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private lose(slot: Slot): void {
    slot.ready = false;
    this.settle(slot);
    const owed = [...slot.pending.values()];
    slot.pending.clear();
    for (const settle of owed) settle([]);
  }
}
