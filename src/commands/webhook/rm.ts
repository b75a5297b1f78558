// `svc webhook rm <webhook_id>`: deletes a subscription, after confirmation.
import type { Needs } from '../../runtime/factory.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import * as z from 'zod/mini';

export async function removeWebhook(ctx: Needs<'client' | 'confirm' | 'io' | 'json'>, id: string): Promise<void> {
  await ctx.confirm.destructive(`Delete webhook ${sanitize(id)}? Deliveries stop at once, pending retries included.`);
  const client = await ctx.client();
  const { data } = await client.delete(`/v1/webhooks/${encodeURIComponent(id)}`, { schema: z.unknown() });
  if (ctx.json) return printJson(ctx.io, data ?? { webhook_id: id, deleted: true });
  ctx.io.err(`deleted webhook ${sanitize(id)}\n`);
}
