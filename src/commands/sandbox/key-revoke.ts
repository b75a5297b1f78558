// `svc sandbox key revoke <key_id>`: revokes an API key, after confirmation.
import type { App } from '../../app.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { ApiKeySchema } from '../../api/control-schemas.js';
import { adminTarget, call } from './target.js';

export async function revokeKey(app: App, keyId: string): Promise<void> {
  const target = await adminTarget(app);
  await app.confirmDestructive(`Revoke API key ${sanitize(keyId)}? Requests with it fail from now on`);
  const data = await call(() => target.client.post(`/_sandbox/keys/${encodeURIComponent(keyId)}/revoke`, { schema: ApiKeySchema }));
  if (app.json) printJson(app.io, data);
  else app.io.err(`revoked ${sanitize(data.key_id)} (${sanitize(data.key_hint)}, ${sanitize(data.account)})\n`);
}
