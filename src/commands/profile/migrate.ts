// `svc profile migrate [name…] --to keyring|file`: moves profiles' secrets (API key, decryption key,
// sandbox admin token) between the OS keyring and config.json, all in one change of the config:
// the new place is written first, config.json then points at it, the old place is emptied last.
// `--own-keyring`: a copied config directory takes keyring entries of its own (profiles.ts).
import type { Needs } from '../../runtime/factory.js';
import { UsageError } from '../../errors.js';
import { profileNotFound } from '../../config/profiles.js';
import type { SecretsStore } from '../../config/profile-types.js';
import { sanitize, safeJson } from '../../io/sanitize.js';

const WORDS: Record<SecretsStore, string> = { keyring: 'the OS keyring', file: 'config.json' };

export async function migrateProfiles(ctx: Needs<'io' | 'json' | 'profiles'>, names: string[], opts: { to?: string; ownKeyring?: boolean }): Promise<void> {
  if (opts.ownKeyring) return ownKeyring(ctx, names, opts);
  if (opts.to !== 'keyring' && opts.to !== 'file') throw new UsageError('--to must be keyring or file', 'e.g. `svc profile migrate --to keyring`');
  const to: SecretsStore = opts.to;
  const store = await ctx.profiles();
  const moved = await store.update((config) => {
    const targets = names.length > 0 ? [...new Set(names)] : config.names();
    return targets.map((name) => {
      const from = config.storeOf(name);
      if (!from) throw profileNotFound(name);
      if (from !== to) config.set(name, { ...config.get(name)!, secrets: to });
      return { profile: name, from, to };
    });
  });
  if (ctx.json) {
    ctx.io.out(`${safeJson(moved)}\n`);
    return;
  }
  if (moved.length === 0) ctx.io.err('no profiles to migrate\n');
  for (const m of moved) {
    ctx.io.err(m.from === m.to ? `profile "${sanitize(m.profile)}": secrets already in ${WORDS[to]}\n` : `profile "${sanitize(m.profile)}": secrets moved from ${WORDS[m.from]} to ${WORDS[to]}\n`);
  }
}

/** A copied config directory's keyring profiles get entries of their own (all of them: one keyring id). */
async function ownKeyring(ctx: Needs<'io' | 'json' | 'profiles'>, names: string[], opts: { to?: string }): Promise<void> {
  if (names.length > 0 || opts.to !== undefined) throw new UsageError('--own-keyring takes every keyring profile of this directory, and neither names nor --to', 'run `svc profile migrate --own-keyring` alone');
  const moved = await (await ctx.profiles()).ownKeyring();
  if (ctx.json) {
    ctx.io.out(`${safeJson(moved.map((profile) => ({ profile, keyring: 'own entries' })))}\n`);
    return;
  }
  if (moved.length === 0) ctx.io.err('the keyring entries of this config directory are its own already: nothing to do\n');
  for (const name of moved) ctx.io.err(`profile "${sanitize(name)}": secrets copied into keyring entries of this directory's own\n`);
}
