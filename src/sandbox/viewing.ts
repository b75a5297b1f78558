// Ciphertexts to accounts' viewing keys: what an account's own tool decrypts locally (balances,
// and the per-reader amount/memo ciphertexts of transfers). Only public keys are used here: the
// sandbox never holds a decryption key after handing it out.
import { contexts, encryptWithPreparedKey, newEphemeral, prepareKey, type Ephemeral } from '../crypto/ciphertext.js';
import { parseViewingPublicKey } from '../crypto/viewing-key.js';
import { keyPool } from './crypto/key-pool.js';
import type { Account, ReaderCiphertexts } from './records.js';

const publicKeys = new WeakMap<Account, Buffer | null>();

/** The account's viewing public key as bytes, or undefined when it has none. */
export function viewingKeyOf(account: Account | undefined): Buffer | undefined {
  if (!account?.viewing_public_key) return undefined;
  let key = publicKeys.get(account);
  if (key === undefined) {
    const parsed = parseViewingPublicKey(account.viewing_public_key);
    key = parsed.ok ? parsed.value : null;
    publicKeys.set(account, key);
  }
  return key ?? undefined;
}

/**
 * Encrypts to an account's viewing key; undefined when the account has none. The key agreement
 * comes from the pool made ahead of time (crypto/key-pool.ts) when it has one ready for this key,
 * else it is made here, with `eph` when given (see encryptTo).
 */
export function encryptFor(account: Account | undefined, plaintext: string, context: string, eph?: Ephemeral | (() => Ephemeral)): string | undefined {
  const key = viewingKeyOf(account);
  if (!key) return undefined;
  const prepared = keyPool.take(key) ?? prepareKey(key, typeof eph === 'function' ? eph() : eph);
  return encryptWithPreparedKey(prepared, plaintext, context);
}

/**
 * Per-reader ciphertexts of a transfer's amount (minor units) and memo. Readers (chain.ts): the
 * sender, a sandbox recipient, and the owner of an agent on either side; repeats are skipped.
 */
export function transferCiphertexts(
  transferId: string,
  readers: readonly (Account | undefined)[],
  units: bigint,
  memo: string | undefined,
): Record<string, ReaderCiphertexts> {
  const out: Record<string, ReaderCiphertexts> = {};
  // Made here (the pool had nothing ready): one ephemeral key for the amounts of all readers, one
  // for the memos: each reader still gets its own content key per ciphertext (see encryptTo), at
  // half the key generations or less.
  let amountEph: Ephemeral | undefined;
  let memoEph: Ephemeral | undefined;
  const amountKey = () => (amountEph ??= newEphemeral());
  const memoKey = () => (memoEph ??= newEphemeral());
  const amount = units.toString();
  for (const reader of readers) {
    if (!reader || out[reader.account_id] || !viewingKeyOf(reader)) continue;
    const entry: ReaderCiphertexts = { amount_ciphertext: encryptFor(reader, amount, contexts.transferAmount(transferId, reader.account_id), amountKey)! };
    if (memo !== undefined) entry.memo_ciphertext = encryptFor(reader, memo, contexts.transferMemo(transferId, reader.account_id), memoKey)!;
    out[reader.account_id] = entry;
  }
  return out;
}
