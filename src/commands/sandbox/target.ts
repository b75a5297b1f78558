// Admin commands: they call the sandbox's /_sandbox control API with the token stored in the
// `sandbox` profile (or the profile named by --profile), sent as X-Sandbox-Admin-Token. A profile
// that follows a sandbox (`--profile bot`) names that sandbox: its own profile's token is used.
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { CliError, ApiError } from '../../errors.js';
import type { Profile, ProfileStore } from '../../config/profiles.js';
import type { ProfileLookup } from '../../config/profile-file.js';
import { followedSandbox } from '../../config/sandbox-follow.js';
import { isMarkedSandbox, isSandboxProfile, SANDBOX_PROFILE } from '../../config/sandbox-profile.js';
import { shellWord } from '../../domain/shell-command.js';
import { sanitize } from '../../io/sanitize.js';

export interface AdminTarget {
  client: ApiClient;
  store: ProfileStore;
  profileName: string;
  profile: Profile;
}

export async function adminTarget(ctx: Needs<'clientFor' | 'globals' | 'profiles'>): Promise<AdminTarget> {
  const store = await ctx.profiles();
  const named = ctx.globals.profile ?? SANDBOX_PROFILE;
  // A profile that follows a sandbox (`--profile bot`) names that sandbox: its own profile acts.
  const followed = followedSandbox(store, named);
  if (followed && followed.owner === undefined) {
    throw new CliError('usage', 'no_sandbox_profile', `profile "${sanitize(named)}" follows the sandbox of ${sanitize(followed.state)}, which has no profile of its own now (not started since it was removed)`,
      { hint: `start it with \`svc sandbox start\`: it writes that profile` });
  }
  const profileName = followed?.owner ?? named;
  const profile = store.get(profileName);
  if (!profile) throw new CliError('usage', 'no_sandbox_profile', `no profile "${sanitize(profileName)}": cannot find the sandbox`, { hint: notSandboxHint(store, profileName) });
  if (!profile.sandboxAdminToken || !isSandboxProfile(profile)) {
    throw new CliError('usage', 'no_sandbox_profile', `profile "${sanitize(profileName)}" is not a sandbox profile (it was not written by \`svc sandbox start\`)`, { hint: notSandboxHint(store, profileName) });
  }
  const client = await ctx.clientFor({
    baseUrl: ctx.globals.baseUrl ?? profile.baseUrl,
    apiKey: profile.apiKey,
    headers: { 'x-sandbox-admin-token': profile.sandboxAdminToken },
  });
  return { client, store, profileName, profile };
}

/**
 * The next step when --profile names no profile or one of yours: the sandbox's own profile, when
 * this config dir has one (the admin commands act through it; starting another sandbox on its
 * state would be refused), else starting the sandbox (hint-command.ts gives the command this
 * --profile only when the profile does not exist: it writes it then).
 */
function notSandboxHint(store: ProfileLookup, name: string): string {
  const own = store.names().filter((n) => n !== name && isMarkedSandbox(store.peek(n)!));
  const best = own.includes(SANDBOX_PROFILE) ? SANDBOX_PROFILE : own[0];
  if (best !== undefined) return `the admin commands act through the sandbox's own profile: run it with --profile ${shellWord(best)}${best === SANDBOX_PROFILE ? ' (or without --profile)' : ''}`;
  return 'start the sandbox with `svc sandbox start`: it writes its own profile, which the admin commands use';
}

/** Runs a control call; a refused admin token gets a message that says what to do. */
export async function call<T>(fn: () => Promise<{ data: T }>): Promise<T> {
  try {
    return (await fn()).data;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      throw new CliError('auth', 'unauthorized', 'the sandbox refused the admin token', {
        hint: 'the token changes at every start and `svc sandbox start` stores it in the profile: is this profile pointing at the running sandbox?',
      });
    }
    throw err;
  }
}
