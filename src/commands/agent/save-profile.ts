// `agent create --save-profile <name>`: the agent's API key made and saved with its decryption
// key, in one step (issue 25). Only the sandbox makes API keys from the command line (its control
// API, `POST /_sandbox/keys`, with the admin token of a sandbox profile for the same URL); a live
// agent's key comes from the service's dashboard. Everything that can refuse is checked before
// the agent is created; each secret is shown once and saved 0600 through the ProfileStore.
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import type { ProfileStore } from '../../config/profiles.js';
import type { Profile } from '../../config/profile-types.js';
import { accountCacheFor } from '../../config/account-cache.js';
import { checkProfileName } from '../../config/profile-name.js';
import { isSandboxProfile } from '../../config/sandbox-profile.js';
import { CliError, UsageError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';
import { svc } from '../../domain/shell-command.js';
import { isSandboxUrl } from '../../domain/loopback.js';

export interface SavePlan {
  name: string;
  force: boolean;
  baseUrl: string;
  store: ProfileStore;
  /** The sandbox's control API, with a sandbox profile's admin token. */
  admin: ApiClient;
  /** The state file of that sandbox: the saved profile follows it (config/sandbox-follow.ts). */
  follows?: string;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** Why the profile `name` may not be written (undefined: it may). */
function refusal(existing: Profile | undefined, name: string, force: boolean): UsageError | undefined {
  if (!existing) return undefined;
  if (isSandboxProfile(existing)) {
    return new UsageError(`profile "${sanitize(name)}" is the sandbox's own profile; refusing to replace it with an agent's key; nothing was created`,
      'name another profile with --save-profile', 'profile_exists');
  }
  if (force) return undefined;
  return new UsageError(`profile "${sanitize(name)}" exists; refusing to replace it; nothing was created`,
    `--force replaces it; or name another profile with --save-profile (\`svc profile ls\` lists them)`, 'profile_exists');
}

/** Everything checked before the agent exists: the name, the profile, and that this service can make the agent's key. */
export async function planSave(ctx: Needs<'auth' | 'clientFor' | 'profiles'>, name: string, force: boolean): Promise<SavePlan> {
  checkProfileName(name);
  const auth = await ctx.auth();
  const store = await ctx.profiles();
  const refused = refusal(store.get(name), name, force);
  if (refused) throw refused;
  // The admin token of a sandbox profile for this very URL: the profile in use first.
  const candidates = store.list()
    .filter(({ profile }) => profile.sandboxAdminToken !== undefined && isSandboxProfile(profile) && sameOrigin(profile.baseUrl, auth.baseUrl))
    .sort((a, b) => Number(b.name === auth.profileName) - Number(a.name === auth.profileName));
  const admin = candidates[0]?.profile;
  if (auth.environment !== 'test' || !admin?.sandboxAdminToken) {
    throw new CliError('failure', 'unsupported_by_service',
      `--save-profile: ${sanitize(auth.baseUrl)} cannot make an agent's API key from the command line (only the sandbox can: no sandbox profile of this config dir is for this URL); nothing was created`, {
        hint: `create the agent without --save-profile, make its key in the service's dashboard, then save it with ${svc`profile add ${name}`}`,
      });
  }
  const client = await ctx.clientFor({ baseUrl: auth.baseUrl, apiKey: admin.apiKey, headers: { 'x-sandbox-admin-token': admin.sandboxAdminToken } });
  // The agent's key lives in that sandbox's world: the profile follows it wherever it listens.
  const follows = admin.sandboxState !== undefined && isSandboxUrl(auth.baseUrl) ? admin.sandboxState : undefined;
  return { name, force, baseUrl: auth.baseUrl, store, admin: client, ...(follows !== undefined ? { follows } : {}) };
}

export interface SavedAgentProfile {
  profile: string;
  apiKey: string;
  decryptionKey?: string;
  /** It follows the sandbox of this state (its base URL moves with each start). */
  follows?: string;
}

/** Makes the agent's key, shows both secrets once (stderr, or in the JSON document), then saves them. */
export async function makeKeyAndSave(
  ctx: Needs<'io' | 'json'>,
  plan: SavePlan,
  agent: { account_id: string; handle: string; decryption_key?: string | undefined },
): Promise<SavedAgentProfile> {
  const { KeyCreatedSchema } = await import('../../api/control-schemas.js');
  const dk = agent.decryption_key;
  let apiKey: string;
  try {
    ({ data: { key: apiKey } } = await plan.admin.post('/_sandbox/keys', { body: { account: agent.handle, name: `profile ${plan.name}` }, schema: KeyCreatedSchema }));
  } catch (err) {
    // The agent exists now: its decryption key is not lost with the failure.
    if (dk && !ctx.json) ctx.io.err(`The agent's decryption key is shown ONCE; store it now:\n  ${sanitize(dk)}\n`);
    const message = `agent ${sanitize(agent.handle)} was created, but the sandbox did not make its API key: ${err instanceof Error ? err.message : String(err)}; profile "${sanitize(plan.name)}" was not saved`;
    // With --json stderr holds only the error object: the decryption key travels in it.
    const details = { agent: agent.handle, ...(dk && ctx.json ? { decryption_key: dk } : {}) };
    throw err instanceof CliError ? err.with({ message, details, hint: `make one with ${svc`sandbox key create --account ${agent.handle}`}, then ${svc`profile add ${plan.name}`}` }) : err;
  }
  if (!ctx.json) {
    ctx.io.err(`\nThe agent's keys are shown ONCE (profile "${sanitize(plan.name)}" keeps them, 0600):\n`);
    ctx.io.err(`  api key     ${sanitize(apiKey)}\n`);
    if (dk) ctx.io.err(`  decryption  ${sanitize(dk)}\n`);
  }
  const profile: Profile = {
    apiKey, baseUrl: plan.baseUrl, ...(dk ? { decryptionKey: dk } : {}), account: accountCacheFor(plan.baseUrl, apiKey, agent),
    ...(plan.follows !== undefined ? { followsSandbox: plan.follows } : {}),
  };
  // Checked again under the config lock: a profile of that name made meanwhile is not replaced.
  await plan.store.update((config) => {
    const refused = refusal(config.get(plan.name), plan.name, plan.force);
    if (refused) throw refused.with({ message: `${refused.message.replace(/; nothing was created$/, '')}: agent ${sanitize(agent.handle)} was created and its keys are shown above, not saved` });
    config.set(plan.name, profile);
  });
  return { profile: plan.name, apiKey, ...(dk ? { decryptionKey: dk } : {}), ...(plan.follows !== undefined ? { follows: plan.follows } : {}) };
}
