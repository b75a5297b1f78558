// Admin commands: they call the sandbox's /_sandbox control API with the token stored in the
// `sandbox` profile (or the profile named by --profile), sent as X-Sandbox-Admin-Token.
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { CliError, ApiError } from '../../errors.js';
import type { Profile, ProfileStore } from '../../config/profiles.js';
import { isSandboxProfile } from '../../config/sandbox-profile.js';
import { SANDBOX_PROFILE } from './profile-name.js';

export interface AdminTarget {
  client: ApiClient;
  store: ProfileStore;
  profileName: string;
  profile: Profile;
}

export async function adminTarget(ctx: Needs<'clientFor' | 'globals' | 'profiles'>): Promise<AdminTarget> {
  const store = await ctx.profiles();
  const profileName = ctx.globals.profile ?? SANDBOX_PROFILE;
  const profile = store.get(profileName);
  const hint = 'start it with `svc sandbox start` (it writes the "sandbox" profile), or name a sandbox profile with --profile';
  if (!profile) throw new CliError('usage', 'no_sandbox_profile', `no profile "${profileName}": cannot find the sandbox`, { hint });
  if (!profile.sandboxAdminToken || !isSandboxProfile(profile)) {
    throw new CliError('usage', 'no_sandbox_profile', `profile "${profileName}" is not a sandbox profile (it was not written by \`svc sandbox start\`)`, { hint });
  }
  const client = await ctx.clientFor({
    baseUrl: ctx.globals.baseUrl ?? profile.baseUrl,
    apiKey: profile.apiKey,
    headers: { 'x-sandbox-admin-token': profile.sandboxAdminToken },
  });
  return { client, store, profileName, profile };
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
