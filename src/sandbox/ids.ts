// Random identifiers and hashes used across the sandbox.
import { createHash } from 'node:crypto';
import { pooledRandomBytes } from '../crypto/random-pool.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// Ids are drawn from a pool of CSPRNG bytes (one call into the RNG per few dozen ids).
const randomPool = pooledRandomBytes;

/** `length` characters from [A-Za-z0-9], uniformly (rejection sampling, no modulo bias). */
export function randomAlnum(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = randomPool(Math.ceil((length - out.length) * 1.3) + 4);
    for (const b of bytes) {
      if (b >= 248) continue; // 248 = 62 * 4: keeps the distribution uniform
      out += ALNUM[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function randomHex(bytes: number): string {
  return randomPool(bytes).toString('hex');
}

export const newAccountId = () => `acct_${randomAlnum(20)}`;
export const newTransferId = () => `tr_${randomAlnum(24)}`;
export const newKeyId = () => `key_${randomAlnum(16)}`;
export const newApiKey = () => `svc_test_${randomAlnum(32)}`;
export const newAddress = () => `0x${randomHex(20)}`;
export const newTxHash = () => `0x${randomHex(32)}`;
export const newPolicyId = () => `pol_${randomAlnum(20)}`;
/** Held agent transactions. */
export const newTransactionId = () => `txn_${randomAlnum(24)}`;
/** Request ids: 32 hex digits from the pool (one per request: no call into the RNG, no UUID to reformat). */
export const newRequestId = () => `req_${randomHex(16)}`;

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
