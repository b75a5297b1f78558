// One profile as `ls` and `show` print it: secrets masked, the environment read from the key.
// A keyring profile whose secrets cannot be read now is listed without them.
import { environmentOfKey } from '../../domain/api-key.js';
import { maskSecret } from '../../config/mask.js';
import type { Profile, StoredProfile } from '../../config/profiles.js';

export function describeProfile(name: string, profile: Profile | StoredProfile, current: boolean) {
  return {
    name,
    current,
    environment: (profile.apiKey && environmentOfKey(profile.apiKey)) || 'unknown',
    api_key: profile.apiKey ? maskSecret(profile.apiKey) : 'in the OS keyring (unreadable now)',
    base_url: profile.baseUrl,
    ...(profile.decryptionKey ? { decryption_key: maskSecret(profile.decryptionKey) } : {}),
  };
}

/** The profile whole when its secrets can be read; else what config.json has (`ls` lists it anyway). */
export function profileOrStored(store: { get(name: string): Profile | undefined; peek(name: string): StoredProfile | undefined }, name: string): Profile | StoredProfile | undefined {
  try {
    return store.get(name);
  } catch {
    return store.peek(name);
  }
}
