// The account of the API key in use: from the profile when it has learnt it, else asked once
// (GET /v1/accounts/me) and remembered in the profile the key came from, or, for a key no
// profile holds (the environment's), in the config directory (config/account-cache.ts).
import type { ApiClient } from '../api/client.js';
import { keyAccount, rememberAccount, rememberKeyAccount } from '../config/account-cache.js';
import type { ProfileStore } from '../config/profiles.js';
import type { ResolvedAuth } from '../config/resolve.js';

export interface AccountRef {
  account_id: string;
  handle: string;
}

export async function lookupAccount(auth: ResolvedAuth, client: () => Promise<ApiClient>, profiles: () => Promise<ProfileStore>, env: NodeJS.ProcessEnv): Promise<AccountRef> {
  if (auth.account) return auth.account;
  // A key no profile holds whole (the environment's) was perhaps learnt by an earlier run.
  const known = await keyAccount(env, auth.baseUrl, auth.apiKey).catch(() => undefined);
  if (known) return (auth.account = known);
  const { AccountSchema } = await import('../api/schemas.js');
  const { data } = await (await client()).get('/v1/accounts/me', { schema: AccountSchema });
  const account = { account_id: data.account_id, handle: data.handle };
  await rememberKeyAccount(env, auth.baseUrl, auth.apiKey, account);
  if (auth.profileName) {
    // A cache: a config that cannot be opened for writing only costs the request next time.
    const store = await profiles().catch(() => undefined);
    if (store) rememberAccount(store, auth.profileName, auth, account);
  }
  auth.account = account;
  return account;
}
