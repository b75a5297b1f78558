// Where each profile's secrets live (the OS keyring or config.json), which store a new profile
// would get (SVC_CREDENTIAL_STORE, or config.json's "credential_store"), and, when the keyring is
// wanted and cannot be had, why (no session bus, no Secret Service, locked, the module failed to
// load) with the fix. The keyring is probed only when a profile or the setting needs it.
import type { Needs } from '../../runtime/factory.js';
import { configDir } from '../../config/paths.js';
import { readConfig } from '../../config/profile-file.js';
import { storeSetting, type StoreSetting } from '../../config/credentials/setting.js';
import { describeUnavailable, type Unavailable } from '../../config/credentials/unavailable.js';
import { CliError } from '../../errors.js';
import { fail, ok, skip, warn, type CheckResult } from './check.js';

export async function checkSecrets(ctx: Needs<'credentials' | 'env'>, fileCheck: CheckResult): Promise<CheckResult> {
  if (fileCheck.data?.usable === false) return skip('secrets', 'the config file is refused (see config file)');
  let setting: StoreSetting;
  let byStore: Record<string, string[]>;
  try {
    const config = readConfig(configDir(ctx.env));
    setting = storeSetting(ctx.env, config.storeSetting);
    byStore = { keyring: [], file: [] };
    for (const name of config.names()) byStore[config.storeOf(name)!]!.push(name);
  } catch (err) {
    if (err instanceof CliError) return fail('secrets', err.message, { ...(err.hint ? { fix: err.hint } : {}) });
    throw err;
  }
  const source = ctx.env.SVC_CREDENTIAL_STORE ? `SVC_CREDENTIAL_STORE=${setting}` : `${setting}`;
  const where = [
    byStore.keyring!.length ? `OS keyring: ${byStore.keyring!.join(', ')}` : '',
    byStore.file!.length ? `config.json: ${byStore.file!.join(', ')}` : '',
  ].filter(Boolean).join(' · ') || 'no profiles';
  const profiles = Object.fromEntries(Object.entries(byStore).flatMap(([store, names]) => names.map((n) => [n, store])));
  const needsKeyring = byStore.keyring!.length > 0 || setting !== 'file';
  const unavailable: Unavailable | null = needsKeyring ? await (await ctx.credentials()).status() : null;
  const data = { setting, keyring: needsKeyring ? (unavailable ? unavailable.reason : 'available') : 'not checked', profiles };
  if (!unavailable) {
    const next = setting === 'file' ? 'config.json' : 'the OS keyring';
    return ok('secrets', `${where}; new profiles: ${next} (${source})`, { data });
  }
  const { why, fix } = describeUnavailable(unavailable);
  if (byStore.keyring!.length > 0 || setting === 'keyring') {
    const what = byStore.keyring!.length > 0 ? `${where}; the keyring profiles cannot be read: ${why}` : `${where}; ${source} but ${why}`;
    return fail('secrets', what, { fix: byStore.keyring!.length > 0 ? `${fix}; or, where there is no keyring, pass the key in SVC_API_KEY` : fix, data });
  }
  return warn('secrets', `${where}; new profiles: config.json (mode 0600), because ${why}`, { fix: `${fix}; then \`svc profile migrate --to keyring\``, data });
}
