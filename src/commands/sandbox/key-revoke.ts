// `svc sandbox key revoke <key_id>`: revokes an API key, after confirmation.
import type { Needs } from '../../runtime/factory.js';
import { environmentOfKey } from '../../domain/api-key.js';
import { refuseShortenedId } from '../../domain/pasted-id.js';
import { UsageError } from '../../errors.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { ApiKeySchema } from '../../api/control-schemas.js';
import { adminTarget, call } from './target.js';

const WHERE = 'revoke takes the KEY ID column of `svc sandbox key ls` (key_…)';

/**
 * What revoke is given, checked before the sandbox is asked or a question shown: the KEY column
 * of `key ls` (a masked key, `svc_test_****6kS8`) and the key itself are not ids, and the key
 * itself is never echoed (a secret: it is refused, not printed or sent).
 */
export function checkKeyId(text: string): string {
  const id = text.trim();
  if (environmentOfKey(id) && !id.includes('*')) {
    throw new UsageError('key id is an API key itself, not its id (it was not sent)', WHERE);
  }
  if (id.includes('*')) throw new UsageError(`key id "${id}" is a masked API key (the KEY column), not a key id`, WHERE);
  refuseShortenedId('key id', id, 'svc sandbox key ls');
  if (!id || id.length > 200 || /[\s/?#]/.test(id)) throw new UsageError(`key id "${text}" is invalid: it must be a single word such as key_1a2b3c`, WHERE);
  return id;
}

export async function revokeKey(ctx: Needs<'clientFor' | 'confirm' | 'globals' | 'io' | 'json' | 'profiles'>, keyText: string): Promise<void> {
  const keyId = checkKeyId(keyText);
  const target = await adminTarget(ctx);
  await ctx.confirm.destructive(`Revoke API key ${sanitize(keyId)}? Requests with it fail from now on`);
  const data = await call(() => target.client.post(`/_sandbox/keys/${encodeURIComponent(keyId)}/revoke`, { schema: ApiKeySchema }));
  if (ctx.json) printJson(ctx.io, data);
  else ctx.io.err(`revoked ${sanitize(data.key_id)} (${sanitize(data.key_hint)}, ${sanitize(data.account)})\n`);
}
