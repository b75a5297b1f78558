// `svc profile use <name>`: makes a profile the current one.
import type { Needs } from '../../runtime/factory.js';
import { CliError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';

export async function useProfile(ctx: Needs<'io' | 'profiles'>, name: string): Promise<void> {
  const store = await ctx.profiles();
  if (!store.get(name)) throw new CliError('not_found', 'profile_not_found', `profile "${name}" does not exist`, { hint: 'run `svc profile ls`' });
  store.use(name);
  ctx.io.err(`now using profile "${sanitize(name)}"\n`);
}
