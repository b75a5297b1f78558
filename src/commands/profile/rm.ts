// `svc profile rm <name>`: removes a profile and its stored secrets, after confirmation.
import type { Needs } from '../../runtime/factory.js';
import { CliError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';

export async function removeProfile(ctx: Needs<'confirm' | 'io' | 'profiles'>, name: string): Promise<void> {
  const store = await ctx.profiles();
  if (!store.get(name)) throw new CliError('not_found', 'profile_not_found', `profile "${name}" does not exist`, { hint: 'run `svc profile ls`' });
  await ctx.confirm.destructive(`Remove profile "${sanitize(name)}" and its stored keys?`, 'Cancelled; nothing was changed.');
  store.remove(name);
  ctx.io.err(`removed profile "${sanitize(name)}"\n`);
}
