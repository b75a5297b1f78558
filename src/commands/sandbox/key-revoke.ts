// `svc sandbox key revoke <key_id>`: revokes an API key, after confirmation.
import type { Needs } from '../../runtime/factory.js';
import { environmentOfKey } from '../../domain/api-key.js';
import { refuseShortenedId } from '../../domain/pasted-id.js';
import { CliError, UsageError } from '../../errors.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { ApiKeySchema, KeyListSchema } from '../../api/control-schemas.js';
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
  if (!ctx.globals.yes) {
    // Before the question: a key the sandbox does not have is refused now, not after a "yes" (or a
    // --yes a script was told to add), and the question says whose key it is. With --yes the
    // sandbox's own answer says the same.
    const { keys } = await call(() => target.client.get('/_sandbox/keys', { schema: KeyListSchema }));
    const key = keys.find((k) => k.key_id === keyId);
    if (!key) throw new CliError('not_found', 'key_not_found', `no API key ${sanitize(keyId)} in this sandbox`, { hint: 'see the KEY ID column of `svc sandbox key ls`' });
    const whose = `${sanitize(key.name)}, ${sanitize(key.account)}, ${sanitize(key.key_hint)}`;
    if (key.revoked_at === undefined) await ctx.confirm.destructive(`Revoke API key ${sanitize(keyId)} (${whose})? Requests with it fail from now on`);
  }
  const data = await call(() => target.client.post(`/_sandbox/keys/${encodeURIComponent(keyId)}/revoke`, { schema: ApiKeySchema }));
  if (ctx.json) printJson(ctx.io, data);
  else ctx.io.err(`revoked ${sanitize(data.key_id)} (${sanitize(data.key_hint)}, ${sanitize(data.account)})\n`);
}
