// Which profiles `svc sandbox start` (and `sandbox reset`) may rewrite: only those it wrote.
// Anything else under the same name (`--profile prod`) belongs to the user and is refused.
import { environmentOfKey } from '../domain/api-key.js';
import { isSandboxUrl } from '../domain/loopback.js';
import type { StoredProfile } from './profile-file.js';
import type { Profile } from './profile-types.js';

/** The profile `svc sandbox start` writes and the admin commands read (unless --profile). */
export const SANDBOX_PROFILE = 'sandbox';

/**
 * A profile written by `svc sandbox start`: marked `sandbox: true` (profiles written before the
 * mark are known by their admin token). Either way it holds a test key for a loopback URL, so a
 * live key is never taken for the sandbox's, sent to it, or replaced.
 */
export function isSandboxProfile(profile: Profile): boolean {
  return isMarkedSandbox(profile) && environmentOfKey(profile.apiKey) === 'test';
}

/** The marks of the sandbox's own profile, read without its secrets (for words, never for sending). */
export function isMarkedSandbox(profile: StoredProfile): boolean {
  const marked = profile.sandbox === true || (profile.sandbox === undefined && typeof profile.sandboxAdminToken === 'string');
  return marked && isSandboxUrl(profile.baseUrl);
}
