// `svc sandbox key ls`: the API keys and their use, never the keys themselves.
import type { App } from '../../app.js';
import { outputMode, printList } from '../../io/render.js';
import { KeyListSchema } from '../../api/control-schemas.js';
import { normalizeHandle } from './handle.js';
import { adminTarget, call } from './target.js';

export async function listKeys(app: App, opts: { account?: string }): Promise<void> {
  const target = await adminTarget(app);
  const query = opts.account ? { account: normalizeHandle(opts.account) } : undefined;
  const data = await call(() => target.client.get('/_sandbox/keys', { ...(query ? { query } : {}), schema: KeyListSchema }));
  const mode = outputMode(app.io, app.json);
  const when = (v: unknown) => (v ? String(v) : mode === 'table' ? 'never' : '');
  printList(app.io, mode, data.keys, [
    { key: 'key_id', header: 'KEY ID' },
    { key: 'name', header: 'NAME' },
    { key: 'account', header: 'ACCOUNT' },
    { key: 'key_hint', header: 'KEY' },
    { key: 'created_at', header: 'CREATED' },
    { key: 'last_used_at', header: 'LAST USED', format: when },
    { key: 'request_count', header: 'REQUESTS' },
    { key: 'revoked_at', header: 'REVOKED', format: (v) => (v ? String(v) : '-') },
  ], 'No API keys.');
}
