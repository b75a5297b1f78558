// `svc webhook create <url>`: subscribes a URL; the signing secret is shown once.
import type { Needs } from '../../runtime/factory.js';
import { WebhookSchema } from '../../api/schemas.js';
import { checkTransportUrl } from '../../domain/loopback.js';
import { UsageError } from '../../errors.js';
import { timeColumn } from '../../io/columns.js';
import { outputMode, printJson, printRecord } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { eventsFrom } from './events-flag.js';

export function checkWebhookUrl(text: string): void {
  const checked = checkTransportUrl(text);
  if (checked.ok) return;
  if (checked.why === 'invalid') throw new UsageError(`url "${text}" is not a valid URL`);
  throw new UsageError(`url must be https (plain http is accepted only for loopback hosts), got ${checked.url.protocol}//${checked.url.host}`);
}

export async function createWebhook(ctx: Needs<'client' | 'io' | 'json' | 'serviceClock'>, url: string, events: string[]): Promise<void> {
  checkWebhookUrl(url);
  const list = eventsFrom(events);
  const client = await ctx.client();
  const { data, status } = await client.post('/v1/webhooks', { body: { url, events: list }, schema: WebhookSchema });
  if (ctx.json) return printJson(ctx.io, data);
  printRecord(ctx.io, outputMode(ctx.io, false), data, [
    { key: 'webhook_id', header: 'Webhook ID' },
    { key: 'url', header: 'URL' },
    { key: 'events', header: 'Events', format: (v) => (v as string[]).join(', ') },
    timeColumn('created_at', 'Created', () => ctx.serviceClock.now()),
  ]);
  if (status === 200 && !data.secret) {
    // A create of a disabled subscription's URL and events enables that one (docs/webhooks.md,
    // Delivery limits, beyond the spec): nothing new was made, and its secret is the one it had.
    ctx.io.err(`\nenabled again: subscription ${sanitize(data.webhook_id)} had been disabled after a day of failed deliveries; it keeps the signing secret shown when it was first created.\n`);
  } else if (data.secret) {
    ctx.io.err('\nSigning secret: shown ONCE. Store it now (e.g. in your secrets manager); it cannot be shown again.\n');
    ctx.io.out(`${sanitize(data.secret)}\n`);
  } else {
    ctx.io.err('\nwarning: the answer carried no signing secret (it is shown only in the first answer to a create);\nif you do not have it, delete this subscription and create a new one.\n');
  }
}
