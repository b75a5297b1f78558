// `svc profile rm <name>`: removes a profile and its stored secrets, after confirmation.
import type { Needs } from '../../runtime/factory.js';
import { profileNotFound } from '../../config/profiles.js';
import { sanitize } from '../../io/sanitize.js';

export async function removeProfile(ctx: Needs<'confirm' | 'io' | 'profiles'>, name: string): Promise<void> {
  const store = await ctx.profiles();
  if (!store.has(name)) throw profileNotFound(name);
  await ctx.confirm.destructive(`Remove profile "${sanitize(name)}" and its stored keys?`, 'Cancelled; nothing was changed.');
  await store.remove(name); // profile_not_found if another command removed it meanwhile
  ctx.io.err(`removed profile "${sanitize(name)}"\n`);
}
