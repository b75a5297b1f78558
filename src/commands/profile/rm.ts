// `svc profile rm <name>`: removes a profile and its stored secrets, after confirmation.
import type { App } from '../../app.js';
import { CliError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';

export async function removeProfile(app: App, name: string): Promise<void> {
  const store = await app.store();
  if (!store.get(name)) throw new CliError('not_found', 'profile_not_found', `profile "${name}" does not exist`, { hint: 'run `svc profile ls`' });
  await app.confirmDestructive(`Remove profile "${sanitize(name)}" and its stored keys?`, 'Cancelled; nothing was changed.');
  store.remove(name);
  app.io.err(`removed profile "${sanitize(name)}"\n`);
}
