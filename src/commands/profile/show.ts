// `svc profile show [name]`: one profile (the one in use by default), secrets masked, and what is
// set where: where its base URL comes from (its own, the sandbox's own profile, or following the
// sandbox), the account it remembers, and where its secrets live.
import type { Needs } from '../../runtime/factory.js';
import { CliError } from '../../errors.js';
import { outputMode, printRecord } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { cachedAccount } from '../../config/account-cache.js';
import type { Profile } from '../../config/profiles.js';
import { followedState } from '../../config/sandbox-follow.js';
import { isSandboxProfile } from '../../config/sandbox-profile.js';
import { svc } from '../../domain/shell-command.js';
import { describeProfile } from './describe.js';
import { KEYRING_SERVICE } from '../../config/credentials/secrets.js';

/** Where the base URL comes from: `sandbox` (start writes it), `follows_sandbox` (start moves it), `profile` (yours). */
type BaseUrlSource = 'sandbox' | 'follows_sandbox' | 'profile';

function baseUrlSource(profile: Profile): BaseUrlSource {
  if (isSandboxProfile(profile)) return 'sandbox';
  return followedState(profile) !== undefined ? 'follows_sandbox' : 'profile';
}

function sourceWords(name: string, profile: Profile, source: BaseUrlSource): string {
  if (source === 'sandbox') return 'the sandbox: this is its own profile, written at each `svc sandbox start`';
  const set = svc`profile set ${name} --base-url URL`;
  if (source === 'follows_sandbox') return `the sandbox of ${sanitize(followedState(profile)!)}: each start of it moves this profile there (${set} sets one of your own)`;
  return `this profile (${set} changes it)`;
}

export async function showProfile(ctx: Needs<'env' | 'globals' | 'io' | 'json' | 'profiles'>, name?: string): Promise<void> {
  const store = await ctx.profiles();
  const target = name ?? ctx.globals.profile ?? ctx.env.SVC_PROFILE ?? store.current;
  if (target) await store.load([target]);
  const profile = target ? store.get(target) : undefined; // keyring_unavailable when its secrets cannot be read
  if (!target || !profile) {
    throw new CliError('not_found', 'profile_not_found', target ? `profile "${target}" does not exist` : 'no current profile', { hint: 'run `svc profile ls`' });
  }
  const mode = outputMode(ctx.io, ctx.json);
  const source = baseUrlSource(profile);
  const account = cachedAccount(profile.account, profile.baseUrl, profile.apiKey);
  const record = {
    ...describeProfile(target, profile, store.current === target),
    base_url_source: source,
    ...(source === 'follows_sandbox' ? { follows_sandbox: followedState(profile)! } : {}),
    ...(account ? { handle: account.handle } : {}),
    secrets: store.storeOf(target) ?? 'file',
  };
  const where = record.secrets === 'keyring' ? `the OS keyring (service ${KEYRING_SERVICE})` : `${store.path} (mode 0600)`;
  // A person reads "not set" and where each thing comes from (in words on a terminal); JSON leaves an unset field out.
  const words = mode === 'table' ? { base_url_source: sourceWords(target, profile, source) } : {};
  printRecord(ctx.io, mode, mode === 'json' ? record : { decryption_key: 'not set', ...record, ...words, secrets: where }, [
    { key: 'name', header: 'Name' },
    { key: 'current', header: 'Current' },
    { key: 'environment', header: 'Environment' },
    { key: 'handle', header: 'Account' },
    { key: 'api_key', header: 'API key' },
    { key: 'base_url', header: 'Base URL' },
    { key: 'base_url_source', header: 'Base URL from' },
    { key: 'follows_sandbox', header: 'Follows', only: 'tsv' },
    { key: 'decryption_key', header: 'Decryption key' },
    { key: 'secrets', header: 'Secrets in' },
  ]);
}
