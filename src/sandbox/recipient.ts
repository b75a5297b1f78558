// Who a transfer's `to` is in the sandbox: a handle must name an account; an address may be one
// of ours or a wallet outside (the seeded external wallets, or any other, which is ready).
import type { Recipient } from '../domain/recipient.js';
import { externalWallet } from './external-wallets.js';
import type { Account } from './records.js';
import type { Store } from './store/store.js';

export interface FoundRecipient {
  /** The sandbox account behind it, if any. */
  account: Account | undefined;
  /** The chain address the transfer goes to. */
  address: string;
  confidentialReady: boolean;
}

/** undefined when a handle names no account. */
export function findRecipient(store: Store, recipient: Recipient): FoundRecipient | undefined {
  if (recipient.kind === 'handle') {
    const account = store.accountByHandle(recipient.handle);
    return account ? { account, address: account.public_key, confidentialReady: account.confidential_ready } : undefined;
  }
  const account = store.accountByAddress(recipient.address);
  return { account, address: recipient.address, confidentialReady: account ? account.confidential_ready : externalWallet(recipient.address).confidential_ready };
}
