// `svc webhook deliveries <webhook_id>`: the delivery attempts of one subscription.
import type { App } from '../../app.js';
import { DeliverySchema, listOf } from '../../api/schemas.js';
import { outputMode, printList } from '../../io/render.js';

export async function listDeliveries(app: App, id: string): Promise<void> {
  const client = await app.client();
  const { data } = await client.get(`/v1/webhooks/${encodeURIComponent(id)}/deliveries`, { schema: listOf('deliveries', DeliverySchema) });
  printList(app.io, outputMode(app.io, app.json), data.items, [
    { key: 'event', header: 'EVENT' },
    { key: 'event_id', header: 'EVENT ID' },
    { key: 'attempt', header: 'ATTEMPT' },
    { key: 'status_code', header: 'STATUS', format: (v, r) => (v === null || v === undefined ? String(r.error ?? 'no response') : String(v)) },
    { key: 'state', header: 'STATE' },
    { key: 'retry_count', header: 'RETRIES' },
    { key: 'next_retry_at', header: 'NEXT RETRY', format: (v) => (v ? String(v) : '-') },
    { key: 'attempted_at', header: 'ATTEMPTED' },
  ], 'No deliveries yet.');
}
