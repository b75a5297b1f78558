// What a profile remembers about the account its key belongs to (id and handle), so commands
// that need the account id (to open ciphertexts addressed to it) skip GET /v1/accounts/me. An
// API key belongs to one account for good; the entry names the key and base URL it was learnt
// with (a hash, not the key), and any other key or URL ignores it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from './paths.js';
import type { ProfileConfig } from './profile-file.js';
import type { AccountCache } from './profile-types.js';

export type { AccountCache } from './profile-types.js';

/**
 * Tells whether the key or URL changed since the entry was made. Not a secret-keeping hash: FNV-1a,
 * because node:crypto costs ~5 ms to load on commands that otherwise never need it. A file profile's
 * key sits in the same 0600 file; a keyring profile's is ~190 random bits, which 64 bits of hash do
 * not give back.
 */
export function accountCacheKey(baseUrl: string, apiKey: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(`${baseUrl}\n${apiKey}`, 'utf8')) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

/** The cached account when it was learnt with this base URL and key. */
export function cachedAccount(cache: AccountCache | undefined, baseUrl: string, apiKey: string): { account_id: string; handle: string } | undefined {
  if (!cache || cache.for !== accountCacheKey(baseUrl, apiKey)) return undefined;
  return { account_id: cache.account_id, handle: cache.handle };
}

export function accountCacheFor(baseUrl: string, apiKey: string, account: { account_id: string; handle: string }): AccountCache {
  return { for: accountCacheKey(baseUrl, apiKey), account_id: account.account_id, handle: account.handle };
}

/**
 * Remembers the account in the profile the key came from, when the key and URL used are that
 * profile's own (not SVC_API_KEY or --base-url). A cache: when the config is locked by another
 * command, or cannot be written, it is not waited for; it only costs the request next time.
 */
export function rememberAccount(store: { updateIfFree(change: (config: ProfileConfig) => void): boolean }, profileName: string, used: { baseUrl: string; apiKey: string }, account: { account_id: string; handle: string }): void {
  try {
    store.updateIfFree((config) => {
      const profile = config.get(profileName);
      if (profile && profile.apiKey === used.apiKey && profile.baseUrl === used.baseUrl) {
        config.set(profileName, { ...profile, account: accountCacheFor(used.baseUrl, used.apiKey, account) });
      }
    });
  } catch {
    /* a read-only or unsafe config */
  }
}

const KEY_ACCOUNTS = 'accounts';

interface KeyAccount {
  for: string;
  account_id: string;
  handle: string;
}

function parseKeyAccount(v: unknown): KeyAccount | undefined {
  const e = v as Partial<KeyAccount> | null;
  return e && typeof e.for === 'string' && typeof e.account_id === 'string' && typeof e.handle === 'string' ? (e as KeyAccount) : undefined;
}

/**
 * The account of a key that no profile holds (SVC_API_KEY in a cron job or CI), learnt once on this
 * machine and kept in `<config dir>/accounts/accounts.jsonl` (0600; a hash of base URL and key, never
 * the key): the next run of the job does not ask the service again.
 */
export async function keyAccount(env: NodeJS.ProcessEnv, baseUrl: string, apiKey: string): Promise<{ account_id: string; handle: string } | undefined> {
  // Read only: a run that learns nothing leaves nothing behind.
  if (!existsSync(join(configDir(env), KEY_ACCOUNTS, `${KEY_ACCOUNTS}.jsonl`))) return undefined;
  const { openJournalFile } = await import('./journal.js');
  const id = accountCacheKey(baseUrl, apiKey);
  const file = openJournalFile(env, KEY_ACCOUNTS, KEY_ACCOUNTS, { parse: parseKeyAccount, containing: [JSON.stringify(id)] });
  file.close();
  const found = file.entries.findLast((e) => e.for === id);
  return found ? { account_id: found.account_id, handle: found.handle } : undefined;
}

/** Remembers the account of a key no profile holds; a cache: a file that cannot be written only costs the request next time. */
export async function rememberKeyAccount(env: NodeJS.ProcessEnv, baseUrl: string, apiKey: string, account: { account_id: string; handle: string }): Promise<void> {
  try {
    const { openJournalFile } = await import('./journal.js');
    const file = openJournalFile(env, KEY_ACCOUNTS, KEY_ACCOUNTS, { parse: parseKeyAccount, containing: [] });
    file.append({ for: accountCacheKey(baseUrl, apiKey), account_id: account.account_id, handle: account.handle });
    file.close();
  } catch {
    /* a read-only or unsafe config */
  }
}
