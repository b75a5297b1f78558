// Settlement. A transfer submitted at T is decided at T + block time on the sandbox clock:
// `confirmed` (confirmed_at = T + block time, funds credited to a sandbox recipient), or, for
// the dead address, `failed` with the reserved funds returned to the sender (no funds move).
// Funds are reserved (debited) at submission, in the same transaction that records the transfer,
// so concurrent sends cannot overdraw. The pending transfers are the chain's queue: after a
// restart, resume() schedules them again (overdue ones settle at once).
import type { Sealer } from './crypto/sealer.js';
import { externalWallet } from './external-wallets.js';
import { newTransferId, newTxHash } from './ids.js';
import type { Account, Transfer } from './records.js';
import type { Scheduler } from './scheduler.js';
import { aad } from './seal-contexts.js';
import type { Store } from './store/store.js';
import { transferCiphertexts } from './viewing.js';

export interface SubmitInput {
  from: Account;
  /** Recipient exactly as the caller wrote it. */
  to: string;
  /** The recipient's sandbox account, if any. */
  toAccount: Account | undefined;
  /** The recipient's chain address. */
  toAddress: string;
  asset: string;
  units: bigint;
  confidential: boolean;
  memo: string | undefined;
  now: number;
}

export class Chain {
  /**
   * The amount of each transfer submitted by this process and not yet settled, so settling it
   * need not open its sealed amount again (memory holds plaintext balances anyway). Keyed by the
   * transfer object: after a reload the records are new ones and settle from the sealed value.
   */
  private readonly unsettled = new WeakMap<Transfer, bigint>();

  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly sealer: Sealer,
    readonly blockTimeMs: number,
  ) {}

  /** Reserves the funds and records a pending transfer, in one transaction; undefined when the balance is short. */
  submit(input: SubmitInput): Transfer | undefined {
    const { store } = this;
    return store.tx(() => {
      if (!store.debit(input.from.account_id, input.asset, input.units)) return undefined;
      const transfer_id = newTransferId();
      const transfer: Transfer = {
        transfer_id,
        from_account_id: input.from.account_id,
        from: input.from.handle,
        to: input.to,
        to_account_id: input.toAccount?.account_id ?? null,
        to_address: input.toAddress.toLowerCase(),
        asset: input.asset,
        confidential: input.confidential,
        status: 'pending',
        tx_hash: newTxHash(),
        created_at: input.now,
        settles_at: input.now + this.blockTimeMs,
        confirmed_at: null,
        failed_at: null,
        amount_sealed: this.sealer.sealAmount(input.units, aad.transferAmount(transfer_id)),
        memo_sealed: input.memo === undefined ? null : this.sealer.sealText(input.memo, aad.transferMemo(transfer_id)),
        reader_ciphertexts: transferCiphertexts(transfer_id, this.readersOf(input), input.units, input.memo),
      };
      store.addTransfer(transfer);
      this.unsettled.set(transfer, input.units);
      store.onCommit(() => this.track(transfer));
      return transfer;
    });
  }

  /** Who gets the amount and memo encrypted: both sides, and the owner of an agent on either side. */
  private readersOf(input: SubmitInput): Array<Account | undefined> {
    const ownerOf = (a: Account | undefined) => (a?.type === 'agent' && a.parent_account_id ? this.store.account(a.parent_account_id) : undefined);
    return [input.from, input.toAccount, ownerOf(input.from), ownerOf(input.toAccount)];
  }

  /** Schedules every pending transfer (after a start or a reload). */
  resume(): void {
    for (const t of this.store.pendingTransfers()) this.track(t);
  }

  private track(t: Transfer): void {
    this.scheduler.at(t.settles_at, (dueAt) => this.decide(t.transfer_id, dueAt));
  }

  /**
   * Confirms or fails one pending transfer at its settlement instant, in one transaction: the
   * batch of this event-loop turn (group commit, store/transactions.ts), so the settlements due
   * at one instant commit together. Nobody waits for the commit; should the batch fail, the
   * transfer is still pending in the database and the reload (which reports the failure)
   * schedules it again.
   */
  decide(transferId: string, at: number): void {
    const { store } = this;
    const committed = store.txGrouped(() => {
      const t = store.transfer(transferId);
      if (!t || t.status !== 'pending') return;
      const units = this.unsettled.get(t) ?? this.sealer.openAmount(t.amount_sealed, aad.transferAmount(t.transfer_id));
      this.unsettled.delete(t);
      const fails = t.to_account_id === null && externalWallet(t.to_address).fails;
      // A credit that would overflow the recipient's maximum balance cannot settle either.
      const credited = !fails && (t.to_account_id === null || store.credit(t.to_account_id, t.asset, units));
      if (credited) {
        store.settleTransfer(t, 'confirmed', at);
        return;
      }
      store.credit(t.from_account_id, t.asset, units, { uncapped: true }); // return the reservation
      store.settleTransfer(t, 'failed', at);
    });
    committed.catch(() => {});
  }
}
