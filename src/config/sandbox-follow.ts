// Profiles that follow the sandbox (docs/ux.md, "Profiles that follow the sandbox"). A profile svc
// made against a sandbox remembers the state file of the world its key belongs to
// (`followsSandbox`); `svc sandbox start` of that state moves each such profile's base URL to
// wherever it now listens, in the same change of config.json as its own profile (under the config
// lock). Narrow on purpose: only a svc_test_ key follows, only from and to a loopback sandbox URL,
// never the sandbox's own profile (start writes that one itself), and never a profile without the
// mark: yours stays where you put it.
import { isAbsolute, join, resolve } from 'node:path';
import { environmentOfKey } from '../domain/api-key.js';
import { isSandboxUrl } from '../domain/loopback.js';
import { accountCacheFor, cachedAccount } from './account-cache.js';
import { configDir } from './paths.js';
import type { ProfileConfig, ProfileLookup, StoredProfile } from './profile-file.js';
import type { Profile } from './profile-types.js';
import { isMarkedSandbox, isSandboxProfile, SANDBOX_PROFILE } from './sandbox-profile.js';

/** What the hints of a following profile's key name (api/hints.ts words them). */
export interface SandboxFollower {
  /** The following profile. */
  profile: string;
  /** The sandbox's own profile of the same state: it can make this profile a new key. */
  owner?: string;
  /** The account the key was for, as the profile remembers it (`@alice/payroll-bot`). */
  handle?: string;
}

/** Where `svc sandbox start` keeps its world unless --state says otherwise. */
export function defaultStatePath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'sandbox', 'state.db');
}

/** The one spelling of a state file in profiles: absolute, so that one file compares equal. */
export function stateKey(path: string): string {
  return resolve(path);
}

/** The state a profile follows, when it may follow by the rules (its key read: what moves it). */
export function followedState(profile: Profile): string | undefined {
  const state = markedFollowing(profile);
  return state !== undefined && environmentOfKey(profile.apiKey) === 'test' && !isSandboxProfile(profile) ? state : undefined;
}

/** The state a profile is marked to follow, read without its secrets (for words: `profile show`, hints). */
export function markedFollowing(profile: StoredProfile): string | undefined {
  const state = profile.followsSandbox;
  if (typeof state !== 'string' || !isAbsolute(state) || isMarkedSandbox(profile) || !isSandboxUrl(profile.baseUrl)) return undefined;
  if (profile.apiKey !== undefined && environmentOfKey(profile.apiKey) !== 'test') return undefined;
  return state;
}

/**
 * Points every profile that follows `state` at `url`, in a change of config.json (the caller holds
 * the lock); returns their names. A keyring profile whose secrets cannot be read now stays as it is.
 */
export function moveFollowers(config: ProfileConfig, state: string, url: string): string[] {
  if (!isSandboxUrl(url)) return [];
  const moved: string[] = [];
  for (const name of config.names()) {
    let profile: Profile | undefined;
    try {
      profile = config.get(name);
    } catch {
      continue;
    }
    if (!profile || followedState(profile) !== state || profile.baseUrl === url) continue;
    const next: Profile = { ...profile, baseUrl: url };
    // The account it remembers is still its key's: learnt again under the new URL, not asked again.
    const known = cachedAccount(profile.account, profile.baseUrl, profile.apiKey);
    if (known) next.account = accountCacheFor(url, profile.apiKey, known);
    config.set(name, next);
    moved.push(name);
  }
  return moved;
}

/** The sandbox's own profile of `state` (written by `sandbox start` with it), `sandbox` first. */
export function ownerOf(lookup: ProfileLookup, state: string): string | undefined {
  const owners = lookup.names().filter((name) => {
    const p = lookup.peek(name);
    return p !== undefined && isMarkedSandbox(p) && p.sandboxState === state;
  });
  return owners.includes(SANDBOX_PROFILE) ? SANDBOX_PROFILE : owners[0];
}

/** When `name` is a profile that follows a sandbox: that sandbox's state, and its own profile if one exists. */
export function followedSandbox(lookup: ProfileLookup, name: string): { state: string; owner?: string } | undefined {
  const profile = lookup.peek(name);
  const state = profile && markedFollowing(profile);
  if (state === undefined) return undefined;
  const owner = ownerOf(lookup, state);
  return { state, ...(owner !== undefined ? { owner } : {}) };
}

/**
 * The profile a `svc sandbox …` command in a hint takes when this run's target is `name`
 * (runtime/hint-command.ts): `name` itself when it is the sandbox's own profile, follows one
 * (the sandbox commands act on its sandbox then) or does not exist yet (start writes it); null
 * for any other profile (yours: `sandbox start` would refuse it), so the command takes the
 * sandbox's default profile.
 */
export function sandboxCommandProfile(lookup: ProfileLookup, name: string): string | null {
  const profile = lookup.peek(name);
  if (!profile || isMarkedSandbox(profile) || markedFollowing(profile) !== undefined) return name;
  return null;
}
