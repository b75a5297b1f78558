// `svc sandbox key revoke <key_id>`: revokes an API key, after confirmation.
import type { Needs } from '../../runtime/factory.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { ApiKeySchema } from '../../api/control-schemas.js';
import { adminTarget, call } from './target.js';

export async function revokeKey(ctx: Needs<'clientFor' | 'confirm' | 'globals' | 'io' | 'json' | 'profiles'>, keyId: string): Promise<void> {
  const target = await adminTarget(ctx);
  await ctx.confirm.destructive(`Revoke API key ${sanitize(keyId)}? Requests with it fail from now on`);
  const data = await call(() => target.client.post(`/_sandbox/keys/${encodeURIComponent(keyId)}/revoke`, { schema: ApiKeySchema }));
  if (ctx.json) printJson(ctx.io, data);
  else ctx.io.err(`revoked ${sanitize(data.key_id)} (${sanitize(data.key_hint)}, ${sanitize(data.account)})\n`);
}
