// Ciphertexts to accounts' viewing keys: the balance each account can decrypt (a new version at
// every change) and the per-reader amount/memo ciphertexts of transfers. Only public keys are
// used here: the sandbox never holds a decryption key after handing it out.
import { contexts, encryptTo } from '../crypto/ciphertext.js';
import { parseViewingPublicKey } from '../crypto/viewing-key.js';
import type { Account } from './state.js';

export interface BalanceCiphertext {
  version: number;
  ciphertext: string;
}

export interface BalanceCiphertextRecord extends BalanceCiphertext {
  account_id: string;
  asset: string;
}

/** Amount (and memo) of one transfer, encrypted to one reader. */
export interface ReaderCiphertexts {
  amount_ciphertext: string;
  memo_ciphertext?: string;
}

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

/** Encrypts to an account's viewing key; undefined when the account has none. */
export function encryptFor(account: Account | undefined, plaintext: string, context: string): string | undefined {
  const key = viewingKeyOf(account);
  return key ? encryptTo(key, plaintext, context) : undefined;
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
  for (const reader of readers) {
    if (!reader || out[reader.account_id]) continue;
    const amount = encryptFor(reader, units.toString(), contexts.transferAmount(transferId, reader.account_id));
    if (!amount) continue;
    const entry: ReaderCiphertexts = { amount_ciphertext: amount };
    if (memo !== undefined) entry.memo_ciphertext = encryptFor(reader, memo, contexts.transferMemo(transferId, reader.account_id))!;
    out[reader.account_id] = entry;
  }
  return out;
}

/**
 * The balance ciphertext of every account and asset. Every change makes a new version; the
 * ciphertext of a version is made when it is first read (or saved), so a burst of transfers
 * costs one encryption per read rather than one per change.
 */
export class BalanceViews {
  private readonly byAccount = new Map<string, Map<string, BalanceCiphertext & { units?: bigint }>>();

  constructor(private readonly accountOf: (accountId: string) => Account | undefined) {}

  update(accountId: string, asset: string, units: bigint): void {
    let perAsset = this.byAccount.get(accountId);
    if (!perAsset) this.byAccount.set(accountId, (perAsset = new Map()));
    const prev = perAsset.get(asset);
    perAsset.set(asset, { version: (prev?.version ?? 0) + 1, ciphertext: '', units });
  }

  /** Current ciphertexts of an account (made now for versions not yet encrypted). */
  of(accountId: string): ReadonlyMap<string, BalanceCiphertext> {
    const perAsset = this.byAccount.get(accountId);
    const out = new Map<string, BalanceCiphertext>();
    if (!perAsset) return out;
    for (const [asset, entry] of perAsset) {
      if (!entry.ciphertext && entry.units !== undefined) {
        const ciphertext = encryptFor(this.accountOf(accountId), entry.units.toString(), contexts.balance(accountId, asset, entry.version));
        if (!ciphertext) continue;
        entry.ciphertext = ciphertext;
        delete entry.units; // the plaintext is not kept beside its ciphertext
      }
      if (entry.ciphertext) out.set(asset, { version: entry.version, ciphertext: entry.ciphertext });
    }
    return out;
  }

  records(): BalanceCiphertextRecord[] {
    const out: BalanceCiphertextRecord[] = [];
    for (const account_id of this.byAccount.keys()) for (const [asset, c] of this.of(account_id)) out.push({ account_id, asset, ...c });
    return out;
  }

  load(records: readonly BalanceCiphertextRecord[]): void {
    this.byAccount.clear();
    for (const r of records) {
      let perAsset = this.byAccount.get(r.account_id);
      if (!perAsset) this.byAccount.set(r.account_id, (perAsset = new Map()));
      perAsset.set(r.asset, { version: r.version, ciphertext: r.ciphertext });
    }
  }

  clear(): void {
    this.byAccount.clear();
  }
}
