// `svc sandbox key create`: a new API key for an account, printed once.
import type { Needs } from '../../runtime/factory.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { KeyCreatedSchema } from '../../api/control-schemas.js';
import { normalizeHandle } from './handle.js';
import { adminTarget, call } from './target.js';

export async function createKey(ctx: Needs<'clientFor' | 'globals' | 'io' | 'json' | 'profiles'>, opts: { account: string; name?: string }): Promise<void> {
  const account = normalizeHandle(opts.account);
  const target = await adminTarget(ctx);
  const data = await call(() =>
    target.client.post('/_sandbox/keys', { body: { account, ...(opts.name !== undefined ? { name: opts.name } : {}) }, schema: KeyCreatedSchema }),
  );
  if (ctx.json) {
    printJson(ctx.io, data);
    return;
  }
  // stdout gets the key alone, so KEY=$(svc sandbox key create ...) works.
  ctx.io.out(`${sanitize(data.key)}\n`);
  ctx.io.err(`created ${sanitize(data.key_id)} "${sanitize(data.name)}" for ${sanitize(data.account)}; the key above is shown once\n`);
}
