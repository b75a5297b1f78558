// The tool's local decryption: opens ciphertexts addressed to the profile's viewing key.
// Nothing here talks to the network; the decryption key never leaves this process.
import { formatUnits } from '../domain/amount.js';
import { CiphertextError, contexts, decrypt } from './ciphertext.js';
import type { DecryptionKey } from './viewing-key.js';

export class LocalReader {
  constructor(
    private readonly key: DecryptionKey,
    readonly accountId: string,
  ) {}

  private open(ciphertext: string | undefined, context: string): string | undefined {
    if (!ciphertext) return undefined;
    try {
      return decrypt(this.key.keyObject, this.key.publicKey, ciphertext, context);
    } catch (err) {
      if (err instanceof CiphertextError) return undefined;
      throw err;
    }
  }

  /** A balance ciphertext's amount as a decimal string, or undefined when it does not open. */
  balance(asset: string, version: number, ciphertext: string): string | undefined {
    const units = this.balanceUnits({ asset, version, ciphertext });
    return units === undefined ? undefined : formatUnits(units, asset);
  }

  /**
   * A balance entry's amount in minor units, for comparing: undefined when the entry carries no
   * ciphertext (and version) or it does not open here.
   */
  balanceUnits(entry: { asset: string; version?: number | undefined; ciphertext?: string | undefined }): bigint | undefined {
    if (entry.ciphertext === undefined || typeof entry.version !== 'number') return undefined;
    const units = this.open(entry.ciphertext, contexts.balance(this.accountId, entry.asset, entry.version));
    return units === undefined ? undefined : BigInt(units);
  }

  transferAmount(transferId: string, asset: string, ciphertext: string | undefined): string | undefined {
    const units = this.open(ciphertext, contexts.transferAmount(transferId, this.accountId));
    return units === undefined ? undefined : this.amountOf(units, asset);
  }

  /** A transfer amount's plaintext (minor units) as transferAmount() shows it: for one opened elsewhere (open-pool.ts). */
  amountOf(units: string, asset: string): string {
    return formatUnits(BigInt(units), asset);
  }

  /** What a transfer's amount and memo ciphertexts are sealed to (to open them elsewhere: open-pool.ts). */
  transferContexts(transferId: string): { amount: string; memo: string } {
    return { amount: contexts.transferAmount(transferId, this.accountId), memo: contexts.transferMemo(transferId, this.accountId) };
  }

  transferMemo(transferId: string, ciphertext: string | undefined): string | undefined {
    return this.open(ciphertext, contexts.transferMemo(transferId, this.accountId));
  }

  heldAmount(transactionId: string, asset: string, ciphertext: string | undefined): string | undefined {
    const units = this.open(ciphertext, contexts.heldAmount(transactionId, this.accountId));
    return units === undefined ? undefined : formatUnits(BigInt(units), asset);
  }

  /** An agent's spend so far on a UTC day, in minor units, encrypted to the owner. */
  dailySpent(agentId: string, day: string, ciphertext: string): string | undefined {
    return this.open(ciphertext, contexts.dailySpent(agentId, day, this.accountId));
  }

  /** An agent's balance of `asset` in minor units, encrypted to its owner (this account). */
  agentBalanceUnits(agentId: string, asset: string, version: number, ciphertext: string): bigint | undefined {
    const units = this.open(ciphertext, contexts.agentBalance(agentId, asset, version, this.accountId));
    return units === undefined || !/^\d+$/.test(units) ? undefined : BigInt(units);
  }

  heldMemo(transactionId: string, ciphertext: string | undefined): string | undefined {
    return this.open(ciphertext, contexts.heldMemo(transactionId, this.accountId));
  }
}
