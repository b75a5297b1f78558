// Sealing: AES-256-GCM under a local key, with associated data that binds a sealed value to what
// it belongs to (an account and asset, a transfer id...) so it cannot be moved or swapped. The
// sandbox keeps every amount, memo and webhook secret at rest only in this form.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { pooledRandomBytes } from '../../crypto/random-pool.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Amounts are sealed as fixed-width 32-byte integers so a ciphertext's length says nothing. */
const AMOUNT_BYTES = 32;
const AMOUNT_LIMIT = 1n << BigInt(AMOUNT_BYTES * 8);

export class SealError extends Error {}

export class Sealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SealError('the sandbox key must be 32 bytes');
  }

  static random(): Sealer {
    return new Sealer(randomBytes(32));
  }

  seal(plaintext: Buffer, aad: string): string {
    const iv = pooledRandomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, ct, cipher.getAuthTag()]).toString('base64url')}`;
  }

  open(sealed: string, aad: string): Buffer {
    if (typeof sealed !== 'string' || !sealed.startsWith(`${VERSION}.`)) throw new SealError('not a sealed value');
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SealError('sealed value is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new SealError('sealed value does not open under this key for this entry (wrong key, or moved/tampered)');
    }
  }

  sealAmount(units: bigint, aad: string): string {
    if (units < 0n || units >= AMOUNT_LIMIT) throw new SealError('amount out of range');
    return this.seal(Buffer.from(units.toString(16).padStart(AMOUNT_BYTES * 2, '0'), 'hex'), aad);
  }

  openAmount(sealed: string, aad: string): bigint {
    const buf = this.open(sealed, aad);
    if (buf.length !== AMOUNT_BYTES) throw new SealError('sealed amount has the wrong size');
    return BigInt(`0x${buf.toString('hex')}`);
  }

  sealText(text: string, aad: string): string {
    return this.seal(Buffer.from(text, 'utf8'), aad);
  }

  openText(sealed: string, aad: string): string {
    return this.open(sealed, aad).toString('utf8');
  }
}
