// Opening an account: a fresh chain address no other account has, and an X25519 viewing key
// pair whose secret half is handed out once. Seeding (seed.ts) and agent creation (agents.ts)
// both open accounts this way.
import { generateViewingKey } from '../crypto/viewing-key.js';
import { newAccountId, newAddress } from './ids.js';
import type { Account, AccountType, AgentStatus, KycStatus } from './records.js';
import type { Store } from './store/store.js';

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
