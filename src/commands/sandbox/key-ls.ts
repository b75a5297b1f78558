// `svc sandbox key ls`: the API keys and their use, never the keys themselves.
import type { Needs } from '../../runtime/factory.js';
import { idColumn, textColumn, timeColumn, addressColumn } from '../../io/columns.js';
import { outputMode, printList, type Column } from '../../io/render.js';
import { KeyListSchema } from '../../api/control-schemas.js';
import { normalizeHandle } from './handle.js';
import { adminTarget, call } from './target.js';

export async function listKeys(ctx: Needs<'clientFor' | 'globals' | 'io' | 'json' | 'profiles' | 'serviceClock'>, opts: { account?: string }): Promise<void> {
  const target = await adminTarget(ctx);
  const query = opts.account ? { account: normalizeHandle(opts.account) } : undefined;
  const data = await call(() => target.client.get('/_sandbox/keys', { ...(query ? { query } : {}), schema: KeyListSchema }));
  const mode = outputMode(ctx.io, ctx.json);
  printList(ctx.io, mode, data.keys, keyColumns(() => ctx.serviceClock.now()), opts.account ? `No API keys for ${normalizeHandle(opts.account)}. Create one: svc sandbox key create --account ${normalizeHandle(opts.account)}` : 'No API keys. Create one: svc sandbox key create --account @alice');
}

/**
 * Columns of `svc sandbox key ls`. KEY ID is what `sandbox key revoke` takes: shown whole and
 * never dropped (docs/ux.md, Ids); KEY is only the hint of the key, which revoke refuses.
 */
export function keyColumns(now: () => number): Column[] {
  const used = timeColumn('last_used_at', 'LAST USED', now);
  return [
    idColumn('key_id', 'KEY ID'),
    textColumn('name', 'NAME'),
    addressColumn('account', 'ACCOUNT'),
    { key: 'key_hint', header: 'KEY' },
    timeColumn('created_at', 'CREATED', now, { drop: 1 }),
    { ...used, format: (v, r) => (v ? used.format!(v, r) : 'never'), drop: 3 },
    { key: 'request_count', header: 'REQUESTS', align: 'right', drop: 2 },
    timeColumn('revoked_at', 'REVOKED', now),
  ];
}
