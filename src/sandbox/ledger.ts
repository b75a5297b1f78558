// Balances per account and asset, in bigint minor units, and the sealing that keeps every
// amount out of the state file: AES-256-GCM under the sandbox key, with associated data that
// binds a sealed value to its entry (account + asset, or transfer id) so it cannot be moved.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Amounts are sealed as fixed-width 32-byte integers so a ciphertext's length says nothing. */
const AMOUNT_BYTES = 32;
const AMOUNT_LIMIT = 1n << BigInt(AMOUNT_BYTES * 8);

/** The largest balance the sandbox holds for one account and asset (10^30 whole tokens). */
export const MAX_BALANCE_UNITS = 10n ** 36n;

export class SealError extends Error {}

export class Sealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SealError('the sandbox key must be 32 bytes');
  }

  static random(): Sealer {
    return new Sealer(randomBytes(32));
  }

  seal(plaintext: Buffer, aad: string): string {
    const iv = randomBytes(IV_BYTES);
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

/** Associated data: what a sealed value belongs to. */
export const aad = {
  balance: (accountId: string, asset: string) => `svc-sandbox/balance/v1|${accountId}|${asset}`,
  transferAmount: (transferId: string) => `svc-sandbox/transfer-amount/v1|${transferId}`,
  transferMemo: (transferId: string) => `svc-sandbox/transfer-memo/v1|${transferId}`,
};

export interface SealedBalance {
  account_id: string;
  asset: string;
  sealed: string;
}

/**
 * Plaintext balances live in memory only. Sealed copies are made lazily for snapshots and
 * cached until the balance changes, so a snapshot reseals only what moved.
 */
export class Ledger {
  private readonly balances = new Map<string, Map<string, bigint>>();
  private readonly sealedCache = new Map<string, string>();
  /** Called with the new balance on every change (not on restore): keeps the viewing ciphertexts current. */
  onBalance: (accountId: string, asset: string, units: bigint) => void = () => {};

  /** @param onChange called after every balance change (the state file must be rewritten) */
  constructor(private readonly onChange: () => void = () => {}) {}

  balance(accountId: string, asset: string): bigint {
    return this.balances.get(accountId)?.get(asset) ?? 0n;
  }

  /** Assets the account has ever held (zero balances included), in first-held order. */
  assets(accountId: string): string[] {
    return [...(this.balances.get(accountId)?.keys() ?? [])];
  }

  /**
   * Adds units; false (and nothing changes) if the result would exceed MAX_BALANCE_UNITS.
   * `uncapped` is for returning a reservation, which must always succeed.
   */
  credit(accountId: string, asset: string, units: bigint, opts: { uncapped?: boolean } = {}): boolean {
    if (units < 0n) throw new RangeError('credit must not be negative');
    const next = this.balance(accountId, asset) + units;
    if (next > MAX_BALANCE_UNITS && !opts.uncapped) return false;
    this.set(accountId, asset, next);
    return true;
  }

  /** Removes units if the balance covers them; false (and nothing changes) otherwise. */
  debit(accountId: string, asset: string, units: bigint): boolean {
    if (units <= 0n) throw new RangeError('debit must be positive');
    const current = this.balance(accountId, asset);
    if (current < units) return false;
    this.set(accountId, asset, current - units);
    return true;
  }

  clear(): void {
    this.balances.clear();
    this.sealedCache.clear();
  }

  /** Every balance, sealed; each bound to its account and asset. */
  sealAll(sealer: Sealer): SealedBalance[] {
    const out: SealedBalance[] = [];
    for (const [accountId, perAsset] of this.balances) {
      for (const [asset, units] of perAsset) {
        const k = `${accountId}\u0000${asset}`;
        let sealed = this.sealedCache.get(k);
        if (!sealed) {
          sealed = sealer.sealAmount(units, aad.balance(accountId, asset));
          this.sealedCache.set(k, sealed);
        }
        out.push({ account_id: accountId, asset, sealed });
      }
    }
    return out;
  }

  /** Replaces all balances with sealed ones from a snapshot; throws SealError if one fails to open. */
  restore(entries: readonly SealedBalance[], sealer: Sealer): void {
    this.clear();
    this.restoring = true;
    try {
      for (const e of entries) {
        const units = sealer.openAmount(e.sealed, aad.balance(e.account_id, e.asset));
        this.set(e.account_id, e.asset, units);
        this.sealedCache.set(`${e.account_id}\u0000${e.asset}`, e.sealed);
      }
    } finally {
      this.restoring = false;
    }
  }

  private set(accountId: string, asset: string, units: bigint): void {
    let perAsset = this.balances.get(accountId);
    if (!perAsset) this.balances.set(accountId, (perAsset = new Map()));
    perAsset.set(asset, units);
    this.sealedCache.delete(`${accountId}\u0000${asset}`);
    if (!this.restoring) this.onBalance(accountId, asset, units);
    this.onChange();
  }
  private restoring = false;
}
