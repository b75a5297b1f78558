// `svc sandbox reset`: a fresh seed; the profile follows @alice's new key, and each profile that
// follows this sandbox is told its key is gone and how to make a working one.
import type { Needs } from '../../runtime/factory.js';
import { outputMode, printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { ResetSchema } from '../../api/control-schemas.js';
import { isSandboxProfile } from '../../config/sandbox-profile.js';
import { printAccounts } from './print.js';
import { adminTarget, call, type AdminTarget } from './target.js';
import { lostKeyHint } from '../../api/hints.js';
import { cachedAccount } from '../../config/account-cache.js';
import { followedState, type SandboxFollower } from '../../config/sandbox-follow.js';

export async function resetSandbox(ctx: Needs<'clientFor' | 'confirm' | 'globals' | 'io' | 'json' | 'profiles'>): Promise<void> {
  const target = await adminTarget(ctx);
  await ctx.confirm.destructive('Reset the sandbox? Every account, transfer and key is replaced by a fresh seed');
  const data = await call(() => target.client.post('/_sandbox/reset', { schema: ResetSchema }));
  const alice = data.seeded.find((a) => a.handle === '@alice');
  // Re-read under the config lock: only a profile the sandbox wrote is rewritten.
  const moved = alice !== undefined && await target.store.update((config) => {
    const profile = config.get(target.profileName);
    if (!profile || !isSandboxProfile(profile)) return false;
    const next = { ...profile, apiKey: alice.api_key };
    if (alice.decryption_key) next.decryptionKey = alice.decryption_key;
    else delete next.decryptionKey;
    config.set(target.profileName, next);
    return true;
  });
  const mode = outputMode(ctx.io, ctx.json);
  if (mode === 'json') {
    printJson(ctx.io, { ...data, profile: target.profileName });
  } else {
    await printAccounts(ctx, mode, data.seeded);
  }
  ctx.io.err(`sandbox reset: new API and decryption keys above are shown once${moved ? `; profile "${sanitize(target.profileName)}" now uses @alice's new key` : ''}\n`);
  // The profiles that follow this sandbox hold keys of the world that is gone: each is told how to get a working one.
  for (const f of lostFollowers(target)) ctx.io.err(`note: ${sanitize(lostKeyHint(f))}\n`);
}

/** The profiles that follow the reset sandbox's state, as their hints name them. */
function lostFollowers(target: AdminTarget): SandboxFollower[] {
  const state = target.profile.sandboxState;
  if (state === undefined) return [];
  return target.store.names().flatMap((name) => {
    let profile;
    try {
      profile = target.store.get(name);
    } catch {
      return []; // a keyring profile that cannot be read now: nothing to say about it
    }
    if (!profile || followedState(profile) !== state) return [];
    const account = cachedAccount(profile.account, profile.baseUrl, profile.apiKey);
    return [{ profile: name, owner: target.profileName, ...(account ? { handle: account.handle } : {}) }];
  });
}
