// `svc webhook ls`: the subscriptions, never their secrets.
import type { App } from '../../app.js';
import { listOf, WebhookSchema } from '../../api/schemas.js';
import { outputMode, printList } from '../../io/render.js';

export async function listWebhooks(app: App): Promise<void> {
  const client = await app.client();
  const { data } = await client.get('/v1/webhooks', { schema: listOf('webhooks', WebhookSchema) });
  const rows = data.items.map(({ secret: _secret, ...rest }) => rest);
  printList(app.io, outputMode(app.io, app.json), rows, [
    { key: 'webhook_id', header: 'ID' },
    { key: 'url', header: 'URL' },
    { key: 'events', header: 'EVENTS', format: (v) => (v as string[]).join(',') },
    { key: 'created_at', header: 'CREATED' },
  ], 'No webhook subscriptions.');
}
