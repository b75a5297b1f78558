// `svc webhook deliveries <webhook_id>`: the delivery attempts of one subscription.
import type { Needs } from '../../runtime/factory.js';
import { DeliverySchema, listOf } from '../../api/schemas.js';
import { idColumn, textColumn, timeColumn } from '../../io/columns.js';
import { outputMode, printList } from '../../io/render.js';

export async function listDeliveries(ctx: Needs<'client' | 'io' | 'json' | 'serviceClock'>, id: string): Promise<void> {
  const client = await ctx.client();
  const { data } = await client.get(`/v1/webhooks/${encodeURIComponent(id)}/deliveries`, { schema: listOf('deliveries', DeliverySchema) });
  printList(ctx.io, outputMode(ctx.io, ctx.json), data.items, [
    textColumn('event', 'EVENT', { min: 14 }),
    idColumn('event_id', 'EVENT ID', { drop: 3 }),
    { key: 'attempt', header: 'ATTEMPT', align: 'right', drop: 2 },
    textColumn('status_code', 'STATUS', { format: (v, r) => (v === null || v === undefined ? String(r.error ?? 'no response') : String(v)) }),
    { key: 'state', header: 'STATE' },
    { key: 'retry_count', header: 'RETRIES', align: 'right', drop: 1 },
    timeColumn('next_retry_at', 'NEXT RETRY', () => ctx.serviceClock.now()),
    timeColumn('attempted_at', 'ATTEMPTED', () => ctx.serviceClock.now()),
  ], 'No deliveries yet. Send a sample event: svc sandbox trigger transfer.confirmed');
}
