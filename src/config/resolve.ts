// Which key, base URL and decryption key a command uses (docs/configuration.md, "Precedence"):
//   1. flags (--base-url), then
//   2. a profile named by --profile or SVC_PROFILE: its own key, base URL and decryption key,
//      whatever else the environment says (a key never goes to a URL from another source), else
//   3. the environment (SVC_API_KEY, SVC_BASE_URL, SVC_DECRYPTION_KEY), over
//   4. the current profile, then the defaults: the local sandbox for a test key, none for a live
//      key (src/domain/key-transport.ts). The base URL is checked for the key by the factory
//      (src/runtime/factory.ts) before any use; `svc doctor` reads these settings to explain a refusal.
import { CliError } from '../errors.js';
import { cachedAccount } from './account-cache.js';
import { checkApiKey, environmentOfKey, type Environment } from '../domain/api-key.js';
import { defaultBaseUrl } from '../domain/key-transport.js';
import type { ProfileLookup } from './profile-file.js';
import type { Profile } from './profile-types.js';
import { followedState, ownerOf, type SandboxFollower } from './sandbox-follow.js';

/** Where the base URL came from: the words messages use for it (`default`: the local sandbox, for a test key). */
export type BaseUrlSource = '--base-url' | 'SVC_BASE_URL' | `profile "${string}"` | 'default';

/** What the flags, profiles and environment say for this run, before the base URL is checked. */
export interface AuthSettings {
  apiKey: string;
  /** Where the key came from: a profile, or SVC_API_KEY. */
  apiKeySource: 'profile' | 'SVC_API_KEY';
  /** The base URL the profile itself holds, if any (what a profile's live key may go to without --base-url). */
  profileBaseUrl?: string;
  /** undefined: a live key and no base URL anywhere (a live key has no default). */
  baseUrl: string | undefined;
  baseUrlSource: BaseUrlSource;
  environment: Environment;
  profileName: string | null;
  decryptionKey?: string;
  /** Where the decryption key came from, for messages. */
  decryptionKeySource: string;
  sandboxAdminToken?: string;
  /** The account of this key and base URL, when the profile has learnt it. */
  account?: { account_id: string; handle: string };
  /** The profile follows a sandbox and this run uses its own key and URL: what its hints name. */
  follower?: SandboxFollower;
}

/** Settings whose base URL passed the key's transport rule (src/api/url.ts checkKeyBaseUrl). */
export interface ResolvedAuth extends AuthSettings {
  baseUrl: string;
}

export interface ResolveFlags {
  profile?: string;
  baseUrl?: string;
}

/** The profile whose secrets resolveSettings() will read, if any (the rest of the run needs no other). */
export function profileNeedingSecrets(store: ProfileLookup, flags: ResolveFlags, env: NodeJS.ProcessEnv): string | null {
  const named = flags.profile ?? env.SVC_PROFILE;
  return named ?? (env.SVC_API_KEY ? null : store.current);
}

export function resolveSettings(store: ProfileLookup, flags: ResolveFlags, env: NodeJS.ProcessEnv): AuthSettings {
  const named = flags.profile ?? env.SVC_PROFILE;
  const profileName = named ?? store.current;
  // With SVC_API_KEY for the current profile, a keyring profile's secrets are not read (nor the module loaded).
  const secretsUsed = named || !env.SVC_API_KEY;
  const profile = profileName ? (secretsUsed ? store.get(profileName) : store.peek(profileName)) : undefined;
  if (named && !profile) {
    throw new CliError('not_found', 'profile_not_found', `profile "${named}" does not exist`, { hint: 'run `svc profile ls` to see your profiles' });
  }
  // A named profile is used as a whole; the environment fills in only for the current profile.
  const fromEnv = (name: string) => (named ? undefined : env[name] || undefined);
  const apiKey = fromEnv('SVC_API_KEY') ?? profile?.apiKey;
  if (!apiKey) {
    throw new CliError('auth', 'no_api_key', 'no API key configured', {
      hint: 'start the sandbox with `svc sandbox start`, or add a profile with `svc profile add <name>`, or set SVC_API_KEY',
    });
  }
  const rule = checkApiKey(apiKey);
  if (rule) {
    const source = fromEnv('SVC_API_KEY') ? 'SVC_API_KEY' : `the API key of profile "${profileName}"`;
    throw new CliError('auth', 'invalid_api_key', `${source} ${rule}`, { hint: 'keys look like svc_test_… or svc_live_…; add a working one with `svc profile add <name>`' });
  }
  const environment = environmentOfKey(apiKey)!;
  const [baseUrl, baseUrlSource] = firstBaseUrl([
    [flags.baseUrl, '--base-url'],
    [fromEnv('SVC_BASE_URL'), 'SVC_BASE_URL'],
    [profile?.baseUrl, `profile "${profileName}"`],
  ]) ?? [defaultBaseUrl(environment), 'default'];
  const decryptionKey = fromEnv('SVC_DECRYPTION_KEY') ?? profile?.decryptionKey;
  const account = baseUrl === undefined ? undefined : cachedAccount(profile?.account, baseUrl, apiKey);
  const follower = profile && profileName && !fromEnv('SVC_API_KEY') && baseUrlSource === `profile "${profileName}"`
    ? followerOf(store, profileName, { ...profile, apiKey }, account) : undefined;
  return {
    apiKey,
    apiKeySource: fromEnv('SVC_API_KEY') ? 'SVC_API_KEY' : 'profile',
    ...(profile?.baseUrl ? { profileBaseUrl: profile.baseUrl } : {}),
    baseUrl,
    baseUrlSource,
    environment,
    profileName: profile ? profileName : null,
    ...(decryptionKey ? { decryptionKey } : {}),
    ...(profile?.sandboxAdminToken ? { sandboxAdminToken: profile.sandboxAdminToken } : {}),
    ...(account ? { account } : {}),
    ...(follower ? { follower } : {}),
    decryptionKeySource: fromEnv('SVC_DECRYPTION_KEY') ? 'SVC_DECRYPTION_KEY' : "the profile's decryption key",
  };
}

/** What the hints of a profile that follows a sandbox name: its sandbox's own profile, its account. */
function followerOf(store: ProfileLookup, name: string, profile: Profile, account: { handle: string } | undefined): SandboxFollower | undefined {
  const state = followedState(profile);
  if (state === undefined) return undefined;
  const owner = ownerOf(store, state);
  return { profile: name, ...(owner !== undefined ? { owner } : {}), ...(account ? { handle: account.handle } : {}) };
}

/** The first base URL that is set, with where it came from. */
function firstBaseUrl(candidates: Array<[string | undefined, BaseUrlSource]>): [string, BaseUrlSource] | undefined {
  const found = candidates.find(([url]) => url !== undefined);
  return found && [found[0]!, found[1]];
}
