// `svc webhook ls`: the subscriptions, never their secrets.
import type { App } from '../../app.js';
import { listOf, WebhookSchema } from '../../api/schemas.js';
import { idColumn, textColumn, timeColumn } from '../../io/columns.js';
import { outputMode, printList } from '../../io/render.js';

export async function listWebhooks(app: App): Promise<void> {
  const client = await app.client();
  const { data } = await client.get('/v1/webhooks', { schema: listOf('webhooks', WebhookSchema) });
  const rows = data.items.map(({ secret: _secret, ...rest }) => rest);
  printList(app.io, outputMode(app.io, app.json), rows, [
    idColumn('webhook_id', 'ID'),
    textColumn('url', 'URL', { min: 20 }),
    textColumn('events', 'EVENTS', { format: (v) => (v as string[]).join(','), drop: 1 }),
    timeColumn('created_at', 'CREATED', () => app.serviceNow()),
  ], 'No webhook subscriptions. Create one: svc webhook create <https-url> --events all');
}
