// `svc webhook rm <webhook_id>`: deletes a subscription, after confirmation.
import type { App } from '../../app.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import * as z from 'zod/mini';

export async function removeWebhook(app: App, id: string): Promise<void> {
  await app.confirmDestructive(`Delete webhook ${sanitize(id)}? Deliveries stop at once, pending retries included.`);
  const client = await app.client();
  const { data } = await client.delete(`/v1/webhooks/${encodeURIComponent(id)}`, { schema: z.unknown() });
  if (app.json) return printJson(app.io, data ?? { webhook_id: id, deleted: true });
  app.io.err(`deleted webhook ${sanitize(id)}\n`);
}
