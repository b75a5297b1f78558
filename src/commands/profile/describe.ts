// One profile as `ls` and `show` print it: secrets masked, the environment read from the key.
import { environmentOfKey } from '../../domain/api-key.js';
import { maskSecret } from '../../config/mask.js';
import type { Profile } from '../../config/profiles.js';

export function describeProfile(name: string, profile: Profile, current: boolean) {
  return {
    name,
    current,
    environment: environmentOfKey(profile.apiKey) ?? 'unknown',
    api_key: maskSecret(profile.apiKey),
    base_url: profile.baseUrl,
    ...(profile.decryptionKey ? { decryption_key: maskSecret(profile.decryptionKey) } : {}),
  };
}
