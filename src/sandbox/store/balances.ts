// Balances: plaintext units in memory only (sealed in their rows), each with a version that goes
// up at every change, and its ciphertext to the account's viewing key, made when first read.
import { contexts } from '../../crypto/ciphertext.js';
import type { Sealer } from '../crypto/sealer.js';
import { BalanceRecord, type Account } from '../records.js';
import { aad } from '../seal-contexts.js';
import { encryptFor } from '../viewing.js';
import type { Db } from './db.js';
import type { Statements } from './statements.js';
import type { Writer } from './transactions.js';

/** The largest balance the sandbox holds for one account and asset (10^30 whole tokens). */
export const MAX_BALANCE_UNITS = 10n ** 36n;

/** One balance in memory: the plaintext units (never written anywhere) and its viewing version. */
interface Balance {
  units: bigint;
  version: number;
  /** To the account's viewing key for `version`; made when first read. */
  ciphertext?: string;
  /** The ciphertext is in memory but not yet in the database. */
  unsaved?: boolean;
}

export class Balances {
  private readonly byAccount = new Map<string, Map<string, Balance>>();
  /**
   * Balances changed in the current transaction (`account_id \0 asset`). Each is sealed and
   * written once, just before the COMMIT, with its last value and version: a batch of transfers
   * from one account seals and writes its balance once, not once per transfer. The row still
   * commits in the same transaction as every change that moved it.
   */
  private readonly changed = new Set<string>();
  private unsavedCiphertexts = false;

  constructor(
    private readonly stmt: Statements,
    private readonly writer: Writer,
    private readonly sealer: Sealer,
    /** Whose viewing key a balance's ciphertext is made to. */
    private readonly accountOf: (accountId: string) => Account | undefined,
  ) {}

  units(accountId: string, asset: string): bigint {
    return this.byAccount.get(accountId)?.get(asset)?.units ?? 0n;
  }

  /** The version of a balance: it goes up at every change. */
  version(accountId: string, asset: string): number {
    return this.byAccount.get(accountId)?.get(asset)?.version ?? 0;
  }

  /** Assets the account has ever held (zero balances included), in first-held order. */
  assets(accountId: string): string[] {
    return [...(this.byAccount.get(accountId)?.keys() ?? [])];
  }

  /** Adds units; false (and nothing changes) past MAX_BALANCE_UNITS unless `uncapped` (a refund). */
  credit(accountId: string, asset: string, units: bigint, opts: { uncapped?: boolean } = {}): boolean {
    if (units < 0n) throw new RangeError('credit must not be negative');
    const next = this.units(accountId, asset) + units;
    if (next > MAX_BALANCE_UNITS && !opts.uncapped) return false;
    this.set(accountId, asset, next);
    return true;
  }

  /** Removes units if the balance covers them; false (and nothing changes) otherwise. */
  debit(accountId: string, asset: string, units: bigint): boolean {
    if (units <= 0n) throw new RangeError('debit must be positive');
    const current = this.units(accountId, asset);
    if (current < units) return false;
    this.set(accountId, asset, current - units);
    return true;
  }

  /** A change joins the caller's transaction, or runs in one of its own. */
  private set(accountId: string, asset: string, units: bigint): void {
    this.writer.tx(() => {
      let perAsset = this.byAccount.get(accountId);
      if (!perAsset) this.byAccount.set(accountId, (perAsset = new Map()));
      const version = (perAsset.get(asset)?.version ?? 0) + 1;
      perAsset.set(asset, { units, version });
      this.writer.moved(); // memory moved: a rollback must reload it
      this.changed.add(balanceKey(accountId, asset));
    });
  }

  /** Seals and writes the balances changed in this transaction (just before its COMMIT). */
  writeChanged(): void {
    if (!this.changed.size) return;
    for (const k of this.changed) {
      const [accountId, asset] = k.split('\u0000') as [string, string];
      const b = this.byAccount.get(accountId)?.get(asset);
      if (!b) continue;
      this.writer.run(this.stmt.putBalance, accountId, asset, this.sealer.sealAmount(b.units, aad.balance(accountId, asset)), b.version, b.ciphertext ?? null);
      b.unsaved = false;
    }
    this.changed.clear();
  }

  /** After a rollback: nothing waits to be written any more (memory is reloaded). */
  forgetChanged(): void {
    this.changed.clear();
  }

  /**
   * The account's balance ciphertexts to its viewing key, per asset. A version's ciphertext is
   * made when first read (a burst of transfers costs one encryption per read, not per change) and
   * kept, so two reads of an unchanged balance answer the same bytes.
   */
  ciphertexts(accountId: string): Map<string, { version: number; ciphertext: string }> {
    const out = new Map<string, { version: number; ciphertext: string }>();
    const perAsset = this.byAccount.get(accountId);
    if (!perAsset) return out;
    for (const [asset, b] of perAsset) {
      if (!b.ciphertext) {
        const ciphertext = encryptFor(this.accountOf(accountId), b.units.toString(), contexts.balance(accountId, asset, b.version));
        if (!ciphertext) continue;
        b.ciphertext = ciphertext;
        b.unsaved = true;
        this.unsavedCiphertexts = true;
      }
      out.set(asset, { version: b.version, ciphertext: b.ciphertext });
    }
    return out;
  }

  get hasUnsavedCiphertexts(): boolean {
    return this.unsavedCiphertexts;
  }

  /** Writes the ciphertexts that reads made since the last time; saved once committed (a failed flush tries again). */
  writeCiphertexts(): void {
    if (!this.unsavedCiphertexts) return;
    const written: Balance[] = [];
    for (const [accountId, perAsset] of this.byAccount) {
      for (const [asset, b] of perAsset) {
        if (!b.unsaved || !b.ciphertext) continue;
        this.writer.run(this.stmt.putBalanceCiphertext, b.ciphertext, accountId, asset, b.version);
        written.push(b);
      }
    }
    this.writer.onCommit(() => {
      for (const b of written) b.unsaved = false;
      this.unsavedCiphertexts = false;
    });
  }

  /** Loads every balance, opening its sealed units (a wrong key file fails here, with SealError). */
  load(db: Db): void {
    this.clear();
    const rows = db.prepare('SELECT account_id, asset, sealed, version, ciphertext FROM balances ORDER BY rowid').all() as unknown[];
    for (const raw of rows) {
      const b = BalanceRecord.parse(withoutNullFields(raw));
      let perAsset = this.byAccount.get(b.account_id);
      if (!perAsset) this.byAccount.set(b.account_id, (perAsset = new Map()));
      const units = this.sealer.openAmount(b.sealed, aad.balance(b.account_id, b.asset));
      perAsset.set(b.asset, { units, version: b.version, ...(b.ciphertext ? { ciphertext: b.ciphertext } : {}) });
    }
  }

  clear(): void {
    this.byAccount.clear();
    this.changed.clear();
    this.unsavedCiphertexts = false;
  }
}

function balanceKey(accountId: string, asset: string): string {
  return `${accountId}\u0000${asset}`;
}

function withoutNullFields(row: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row as Record<string, unknown>)) if (v !== null && k !== '_metadata') out[k] = v;
  return out;
}
