// `svc webhook replay <webhook_id> <event_id>`: sends one event to a subscription again.
import type { Needs } from '../../runtime/factory.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { withTarget } from '../../runtime/hint-command.js';
import * as z from 'zod/mini';
import { svc } from '../../domain/shell-command.js';

export async function replayEvent(ctx: Needs<'client' | 'globals' | 'io' | 'json'>, id: string, eventId: string): Promise<void> {
  const client = await ctx.client();
  const { data } = await client.post(`/v1/webhooks/${encodeURIComponent(id)}/replay/${encodeURIComponent(eventId)}`, { body: {}, schema: z.unknown() });
  if (ctx.json) return printJson(ctx.io, data);
  const deliveryId = (data as { delivery_id?: unknown } | null)?.delivery_id;
  const webhook = sanitize(id);
  ctx.io.err(`replaying ${sanitize(eventId)} to webhook ${webhook}${typeof deliveryId === 'string' ? ` as delivery ${sanitize(deliveryId)}` : ''}; follow it with ${sanitize(withTarget(svc`webhook deliveries ${webhook}`, ctx.globals))}\n`);
}
