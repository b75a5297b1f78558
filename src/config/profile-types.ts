// What a profile holds (shared by the writable store and the fast reader).

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
