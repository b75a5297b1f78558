// What a profile holds (shared by the conf-backed store and the fast reader).
import type { AccountCache } from './account-cache.js';

export interface Profile {
  apiKey: string;
  baseUrl: string;
  decryptionKey?: string;
  /** Set on the profile written by `svc sandbox start`: the sandbox's control token. */
  sandboxAdminToken?: string;
  /** The account the key belongs to, learnt once (src/config/account-cache.ts). */
  account?: AccountCache;
}

export { DEFAULT_SANDBOX_URL as DEFAULT_BASE_URL } from '../sandbox/defaults.js';
export const PROFILE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
