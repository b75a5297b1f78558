// `svc webhook ls`: the subscriptions, never their secrets.
import type { Needs } from '../../runtime/factory.js';
import { listOf, WebhookSchema } from '../../api/schemas.js';
import { idColumn, textColumn, timeColumn } from '../../io/columns.js';
import { outputMode, printList } from '../../io/render.js';

export async function listWebhooks(ctx: Needs<'client' | 'io' | 'json' | 'serviceClock'>): Promise<void> {
  const client = await ctx.client();
  const { data } = await client.get('/v1/webhooks', { schema: listOf('webhooks', WebhookSchema) });
  const rows = data.items.map(({ secret: _secret, ...rest }) => rest);
  printList(ctx.io, outputMode(ctx.io, ctx.json), rows, [
    idColumn('webhook_id', 'ID'),
    textColumn('url', 'URL', { min: 20 }),
    textColumn('events', 'EVENTS', { format: (v) => (v as string[]).join(','), drop: 1 }),
    timeColumn('created_at', 'CREATED', () => ctx.serviceClock.now()),
  ], 'No webhook subscriptions. Create one: svc webhook create <https-url> --events all');
}
