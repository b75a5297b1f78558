// `svc sandbox reset`: a fresh seed; the profile follows @alice's new key.
import type { App } from '../../app.js';
import { outputMode, printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { ResetSchema } from '../../api/control-schemas.js';
import { printAccounts } from './print.js';
import { adminTarget, call } from './target.js';

export async function resetSandbox(app: App): Promise<void> {
  const target = await adminTarget(app);
  await app.confirmDestructive('Reset the sandbox? Every account, transfer and key is replaced by a fresh seed');
  const data = await call(() => target.client.post('/_sandbox/reset', { schema: ResetSchema }));
  const alice = data.seeded.find((a) => a.handle === '@alice');
  if (alice) {
    const next = { ...target.profile, apiKey: alice.api_key };
    if (alice.decryption_key) next.decryptionKey = alice.decryption_key;
    else delete next.decryptionKey;
    target.store.set(target.profileName, next);
  }
  const mode = outputMode(app.io, app.json);
  if (mode === 'json') {
    printJson(app.io, { ...data, profile: target.profileName });
  } else {
    await printAccounts(app, mode, data.seeded);
  }
  app.io.err(`sandbox reset: new API and decryption keys above are shown once${alice ? `; profile "${sanitize(target.profileName)}" now uses @alice's new key` : ''}\n`);
}
