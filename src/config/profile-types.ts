// What a profile holds (shared by the writable store and the fast reader).

/** Where a profile's secrets live: the OS keyring, or config.json itself (0600). */
export type SecretsStore = 'keyring' | 'file';

export interface Profile {
  apiKey: string;
  baseUrl: string;
  decryptionKey?: string;
  /** Set on the profile written by `svc sandbox start`: the sandbox's control token. */
  sandboxAdminToken?: string;
  /**
   * Written by `svc sandbox start` (config/sandbox-profile.ts): the only profiles it may
   * rewrite. Any other profile of the same name is refused, never overwritten.
   */
  sandbox?: true;
  /**
   * Written by `svc sandbox start` on its own profile: the state file (absolute) of the world it
   * serves; absent for --ephemeral. Followers of that state find their sandbox by it.
   */
  sandboxState?: string;
  /**
   * A profile svc made against the sandbox (`agent create --save-profile`, a `profile add` that
   * took the sandbox's URL): the state file of the world its key belongs to. `svc sandbox start`
   * of that state moves its base URL to wherever it listens (config/sandbox-follow.ts). An
   * explicit base URL (`profile set --base-url`) removes it.
   */
  followsSandbox?: string;
  /**
   * "keyring": the API key, decryption key and admin token are in the OS keyring, not in
   * config.json (src/config/credentials/). Absent or "file": they are in config.json.
   */
  secrets?: SecretsStore;
  /** The account the key belongs to, learnt once (src/config/account-cache.ts). */
  account?: AccountCache;
}

/** What a profile remembers of its key's account (src/config/account-cache.ts). */
export interface AccountCache {
  /** FNV-1a 64 of (base URL, API key), 16 hex digits. */
  for: string;
  account_id: string;
  handle: string;
}

export { PROFILE_NAME_RE } from './profile-name.js';
