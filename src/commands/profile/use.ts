// `svc profile use <name>`: makes a profile the current one.
import type { Needs } from '../../runtime/factory.js';
import { sanitize } from '../../io/sanitize.js';

export async function useProfile(ctx: Needs<'io' | 'profiles'>, name: string): Promise<void> {
  const store = await ctx.profiles();
  await store.use(name); // profile_not_found unless it exists
  ctx.io.err(`now using profile "${sanitize(name)}"\n`);
}
