// Which key, base URL and decryption key a command uses.
// Precedence: flags > SVC_API_KEY / SVC_BASE_URL / SVC_PROFILE > current profile.
import { CliError } from '../errors.js';
import { checkApiKey, environmentOfKey, type Environment } from './keys.js';
import type { ProfileLookup } from './profile-file.js';
import { DEFAULT_BASE_URL } from './profile-types.js';

export interface ResolvedAuth {
  apiKey: string;
  baseUrl: string;
  environment: Environment;
  profileName: string | null;
  decryptionKey?: string;
  sandboxAdminToken?: string;
}

export interface ResolveFlags {
  profile?: string;
  baseUrl?: string;
}

export function resolveAuth(store: ProfileLookup, flags: ResolveFlags, env: NodeJS.ProcessEnv): ResolvedAuth {
  const profileName = flags.profile ?? env.SVC_PROFILE ?? store.current;
  const profile = profileName ? store.get(profileName) : undefined;
  if ((flags.profile ?? env.SVC_PROFILE) && !profile) {
    throw new CliError('not_found', 'profile_not_found', `profile "${profileName}" does not exist`, { hint: 'run `svc profile ls` to see your profiles' });
  }
  const apiKey = (flags.profile ? undefined : env.SVC_API_KEY) || profile?.apiKey;
  if (!apiKey) {
    throw new CliError('auth', 'no_api_key', 'no API key configured', {
      hint: 'start the sandbox with `svc sandbox start`, or add a profile with `svc profile add <name>`, or set SVC_API_KEY',
    });
  }
  const rule = checkApiKey(apiKey);
  if (rule) {
    const source = !flags.profile && env.SVC_API_KEY ? 'SVC_API_KEY' : `the API key of profile "${profileName}"`;
    throw new CliError('auth', 'invalid_api_key', `${source} ${rule}`, { hint: 'keys look like svc_test_… or svc_live_…; add a working one with `svc profile add <name>`' });
  }
  const baseUrl = flags.baseUrl ?? env.SVC_BASE_URL ?? profile?.baseUrl ?? DEFAULT_BASE_URL;
  return {
    apiKey,
    baseUrl,
    environment: environmentOfKey(apiKey)!,
    profileName: profile ? profileName : null,
    decryptionKey: env.SVC_DECRYPTION_KEY || profile?.decryptionKey,
    sandboxAdminToken: profile?.sandboxAdminToken,
  };
}
