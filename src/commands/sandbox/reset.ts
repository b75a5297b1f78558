// `svc sandbox reset`: a fresh seed; the profile follows @alice's new key.
import type { Needs } from '../../runtime/factory.js';
import { outputMode, printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { ResetSchema } from '../../api/control-schemas.js';
import { printAccounts } from './print.js';
import { adminTarget, call } from './target.js';

export async function resetSandbox(ctx: Needs<'clientFor' | 'confirm' | 'globals' | 'io' | 'json' | 'profiles'>): Promise<void> {
  const target = await adminTarget(ctx);
  await ctx.confirm.destructive('Reset the sandbox? Every account, transfer and key is replaced by a fresh seed');
  const data = await call(() => target.client.post('/_sandbox/reset', { schema: ResetSchema }));
  const alice = data.seeded.find((a) => a.handle === '@alice');
  if (alice) {
    const next = { ...target.profile, apiKey: alice.api_key };
    if (alice.decryption_key) next.decryptionKey = alice.decryption_key;
    else delete next.decryptionKey;
    target.store.set(target.profileName, next);
  }
  const mode = outputMode(ctx.io, ctx.json);
  if (mode === 'json') {
    printJson(ctx.io, { ...data, profile: target.profileName });
  } else {
    await printAccounts(ctx, mode, data.seeded);
  }
  ctx.io.err(`sandbox reset: new API and decryption keys above are shown once${alice ? `; profile "${sanitize(target.profileName)}" now uses @alice's new key` : ''}\n`);
}
