// The seeded world: four accounts with keys and balances. `reset` and a first start call
// seedWorld(). How accounts are opened is accounts.ts; the external wallets are external-wallets.ts.
import { decimalsOf } from '../domain/assets.js';
import { createAccount } from './accounts.js';
import { issueKey } from './auth.js';
import type { AccountType, KycStatus } from './records.js';
import type { Store } from './store/store.js';
import type { SeededAccount } from './types.js';

interface SeedSpec {
  handle: string;
  type: AccountType;
  kyc_status: KycStatus;
  confidential_ready: boolean;
  /** Starting balances in whole tokens. */
  balances: ReadonlyArray<readonly [asset: string, whole: bigint]>;
}

export const SEED_ACCOUNTS: readonly SeedSpec[] = [
  { handle: '@alice', type: 'personal', kyc_status: 'verified', confidential_ready: true, balances: [['USDG', 1000n], ['USDC', 250n]] },
  { handle: '@acme', type: 'business', kyc_status: 'verified', confidential_ready: true, balances: [['USDG', 50000n]] },
  { handle: '@bob', type: 'personal', kyc_status: 'unverified', confidential_ready: true, balances: [['USDG', 100n]] },
  { handle: '@oldwallet', type: 'personal', kyc_status: 'verified', confidential_ready: false, balances: [] },
];

export interface SeedResult extends SeededAccount {
  account_id: string;
  key_id: string;
  apiKey: string;
}

/** Creates the seeded accounts, one API key each, and their starting balances. */
export function seedWorld(store: Store, now: number): SeedResult[] {
  return SEED_ACCOUNTS.map((spec) => {
    const { account, decryptionKey } = createAccount(store, spec, now);
    for (const [asset, whole] of spec.balances) store.credit(account.account_id, asset, whole * 10n ** BigInt(decimalsOf(asset)));
    const { record, key } = issueKey(store, account, 'seed', now);
    return {
      account_id: account.account_id,
      key_id: record.key_id,
      handle: account.handle,
      type: account.type,
      kyc_status: account.kyc_status,
      public_key: account.public_key,
      confidential_ready: account.confidential_ready,
      apiKey: key,
      ...(decryptionKey ? { decryptionKey } : {}),
    };
  });
}
