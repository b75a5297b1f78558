// `svc profile use <name>`: makes a profile the current one.
import type { App } from '../../app.js';
import { CliError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';

export async function useProfile(app: App, name: string): Promise<void> {
  const store = await app.store();
  if (!store.get(name)) throw new CliError('not_found', 'profile_not_found', `profile "${name}" does not exist`, { hint: 'run `svc profile ls`' });
  store.use(name);
  app.io.err(`now using profile "${sanitize(name)}"\n`);
}
