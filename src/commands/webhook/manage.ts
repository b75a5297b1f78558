// Subscriptions: create, list, delete, deliveries, replay.
import type { App } from '../../app.js';
import { DeliverySchema, listOf, WebhookSchema } from '../../api/schemas.js';
import { parseEventList } from '../../domain/events.js';
import { isLoopbackHost } from '../../api/url.js';
import { UsageError } from '../../errors.js';
import { outputMode, printJson, printList, printRecord } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import * as z from 'zod/mini';

export function checkWebhookUrl(text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`url "${text}" is not a valid URL`);
  }
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return;
  throw new UsageError(`url must be https (plain http is accepted only for loopback hosts), got ${url.protocol}//${url.host}`);
}

export function eventsFrom(values: readonly string[]): string[] {
  const parsed = parseEventList(values);
  if (!parsed.ok) throw new UsageError(`--events: unknown event type "${parsed.unknown}"`, 'see `svc webhook create --help` for the seven types');
  if (parsed.events.length === 0) throw new UsageError('--events must name at least one event type');
  return parsed.events;
}

export async function createWebhook(app: App, url: string, events: string[]): Promise<void> {
  checkWebhookUrl(url);
  const list = eventsFrom(events);
  const client = await app.client();
  const { data } = await client.post('/v1/webhooks', { body: { url, events: list }, schema: WebhookSchema });
  if (app.json) return printJson(app.io, data);
  printRecord(app.io, outputMode(app.io, false), data, [
    { key: 'webhook_id', header: 'Webhook ID' },
    { key: 'url', header: 'URL' },
    { key: 'events', header: 'Events', format: (v) => (v as string[]).join(', ') },
    { key: 'created_at', header: 'Created' },
  ]);
  if (data.secret) {
    app.io.err('\nSigning secret: shown ONCE. Store it now (e.g. in your secrets manager); it cannot be shown again.\n');
    app.io.out(`${sanitize(data.secret)}\n`);
  } else {
    app.io.err('\nwarning: the answer carried no signing secret (it is shown only in the first answer to a create);\nif you do not have it, delete this subscription and create a new one.\n');
  }
}

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

export async function removeWebhook(app: App, id: string): Promise<void> {
  await app.confirmDestructive(`Delete webhook ${sanitize(id)}? Deliveries stop at once, pending retries included.`);
  const client = await app.client();
  const { data } = await client.delete(`/v1/webhooks/${encodeURIComponent(id)}`, { schema: z.unknown() });
  if (app.json) return printJson(app.io, data ?? { webhook_id: id, deleted: true });
  app.io.err(`deleted webhook ${sanitize(id)}\n`);
}

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

export async function replayEvent(app: App, id: string, eventId: string): Promise<void> {
  const client = await app.client();
  const { data } = await client.post(`/v1/webhooks/${encodeURIComponent(id)}/replay/${encodeURIComponent(eventId)}`, { body: {}, schema: z.unknown() });
  if (app.json) return printJson(app.io, data);
  const deliveryId = (data as { delivery_id?: unknown } | null)?.delivery_id;
  const webhook = sanitize(id);
  app.io.err(`replaying ${sanitize(eventId)} to webhook ${webhook}${typeof deliveryId === 'string' ? ` as delivery ${sanitize(deliveryId)}` : ''}; follow it with \`svc webhook deliveries ${webhook}\`\n`);
}
