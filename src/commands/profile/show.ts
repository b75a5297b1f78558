// `svc profile show [name]`: one profile (the one in use by default), secrets masked, and where they live.
import type { Needs } from '../../runtime/factory.js';
import { CliError } from '../../errors.js';
import { outputMode, printRecord } from '../../io/render.js';
import { describeProfile } from './describe.js';
import { KEYRING_SERVICE } from '../../config/credentials/secrets.js';

export async function showProfile(ctx: Needs<'env' | 'globals' | 'io' | 'json' | 'profiles'>, name?: string): Promise<void> {
  const store = await ctx.profiles();
  const target = name ?? ctx.globals.profile ?? ctx.env.SVC_PROFILE ?? store.current;
  if (target) await store.load([target]);
  const profile = target ? store.get(target) : undefined; // keyring_unavailable when its secrets cannot be read
  if (!target || !profile) {
    throw new CliError('not_found', 'profile_not_found', target ? `profile "${target}" does not exist` : 'no current profile', { hint: 'run `svc profile ls`' });
  }
  const mode = outputMode(ctx.io, ctx.json);
  const record = { ...describeProfile(target, profile, store.current === target), secrets: store.storeOf(target) ?? 'file' };
  const where = record.secrets === 'keyring' ? `the OS keyring (service ${KEYRING_SERVICE})` : `${store.path} (mode 0600)`;
  // A person reads "not set"; JSON leaves the field out.
  printRecord(ctx.io, mode, mode === 'json' ? record : { decryption_key: 'not set', ...record, secrets: where }, [
    { key: 'name', header: 'Name' },
    { key: 'current', header: 'Current' },
    { key: 'environment', header: 'Environment' },
    { key: 'api_key', header: 'API key' },
    { key: 'base_url', header: 'Base URL' },
    { key: 'decryption_key', header: 'Decryption key' },
    { key: 'secrets', header: 'Secrets in' },
  ]);
}
