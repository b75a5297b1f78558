// The seeded world: four accounts with keys and balances, and the external addresses whose
// behaviour is fixed. `reset` and a first start call seedWorld().
import { generateViewingKey } from '../crypto/viewing-key.js';
import { decimalsOf } from '../domain/assets.js';
import { issueKey } from './auth.js';
import { newAccountId, newAddress } from './ids.js';
import type { Account, AccountType, AgentStatus, KycStatus } from './records.js';
import type { Store } from './store.js';
import type { SeededAccount } from './types.js';

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

/**
 * Keys an account gets at creation beyond its chain address: an X25519 viewing key pair. The
 * public half is stored on the account, the secret half is handed out once.
 */
export function provisionAccountKeys(): { viewing_public_key?: string; decryptionKey?: string } {
  const { viewingPublicKey, decryptionKey } = generateViewingKey('test');
  return { viewing_public_key: viewingPublicKey, decryptionKey };
}

export function createAccount(
  store: Store,
  spec: { handle: string; type: AccountType; kyc_status: KycStatus; confidential_ready: boolean; parent_account_id?: string; status?: AgentStatus },
  now: number,
): { account: Account; decryptionKey?: string } {
  const { viewing_public_key, decryptionKey } = provisionAccountKeys();
  let public_key = newAddress();
  while (store.accountByAddress(public_key)) public_key = newAddress();
  const account = store.addAccount({
    account_id: newAccountId(),
    handle: spec.handle,
    type: spec.type,
    public_key,
    kyc_status: spec.kyc_status,
    confidential_ready: spec.confidential_ready,
    created_at: now,
    ...(viewing_public_key ? { viewing_public_key } : {}),
    ...(spec.parent_account_id ? { parent_account_id: spec.parent_account_id } : {}),
    ...(spec.status ? { status: spec.status } : {}),
  });
  return decryptionKey ? { account, decryptionKey } : { account };
}

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
