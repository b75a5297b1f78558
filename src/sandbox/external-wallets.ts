// Addresses outside the sandbox's accounts, and how each behaves when a transfer goes to it:
// the settlement (chain.ts) and the recipient check (recipient.ts) ask here, `svc sandbox start`
// and `print` list them. No imports: the CLI loads it at start-up.

/** Transfers to this address are accepted but never settle: they end `failed`, sender refunded. */
export const DEAD_ADDRESS = '0x000000000000000000000000000000000000dead';

export interface ExternalWallet {
  address: string;
  confidential_ready: boolean;
  behaviour: string;
}

/** Fixed external addresses. Any other well-formed 0x address is a confidential-ready wallet. */
export const EXTERNAL_WALLETS: readonly ExternalWallet[] = [
  { address: '0x1111111111111111111111111111111111111111', confidential_ready: true, behaviour: 'confidential-ready; settles' },
  { address: '0x2222222222222222222222222222222222222222', confidential_ready: false, behaviour: 'standard only: --no-confidential' },
  { address: '0x000000000000000000000000000000000000dEaD', confidential_ready: true, behaviour: 'never settles: fails, refunds' },
];

/** How an address outside the sandbox's accounts behaves. */
export function externalWallet(address: string): { confidential_ready: boolean; fails: boolean } {
  const a = address.toLowerCase();
  const known = EXTERNAL_WALLETS.find((w) => w.address.toLowerCase() === a);
  return { confidential_ready: known?.confidential_ready ?? true, fails: a === DEAD_ADDRESS };
}
