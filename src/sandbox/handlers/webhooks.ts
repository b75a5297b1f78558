// POST/GET /v1/webhooks, GET/DELETE /v1/webhooks/{id}, GET /v1/webhooks/{id}/deliveries,
// POST /v1/webhooks/{id}/replay/{event_id}, and the control route POST /_sandbox/trigger.
// The signing secret appears in the create answer only (and in an Idempotency-Key replay of it,
// which repeats the first answer whole). Another account's subscription is not found. A disabled
// subscription (docs/webhooks.md, Delivery limits) says so in `status`; creating it again (same
// url, same event types) enables it: 200 with the subscription, no secret (the receiver keeps its own).
import { checkTransportUrl } from '../../domain/loopback.js';
import { newWebhookSecret } from '../../crypto/webhook-signature.js';
import { EVENT_TYPES, isEventType, type EventType } from '../../domain/events.js';
import { HANDLE_RE } from '../../domain/recipient.js';
import type { ApiContext, RequestContext, Routes } from '../http/context.js';
import { ApiFault, invalid } from '../faults.js';
import { ok, type Reply } from '../http/respond.js';
import type { Account } from '../records.js';
import { makeSample } from '../samples.js';
import type { Delivery, AttemptRecord, Subscription } from '../webhooks/types.js';
import { field, intParam, objectBody, optionalString, requiredString } from './validate.js';
import { isoTime } from '../iso-time.js';

export const MAX_WEBHOOKS_PER_ACCOUNT = 100;
export const MAX_URL_LENGTH = 2048;

/** The spec's fields; `status` and `disabled_at` (beyond the spec) only while it is disabled. */
export function webhookView(s: Subscription) {
  return {
    webhook_id: s.webhook_id,
    url: s.url,
    events: s.events,
    created_at: isoTime(s.created_at),
    ...(s.status === 'disabled' ? { status: s.status, ...(s.disabled_at !== undefined ? { disabled_at: isoTime(s.disabled_at) } : {}) } : {}),
  };
}

/**
 * One attempt of the delivery log. Omitted, never null: `status_code` when no HTTP answer came
 * (timeout, connection error), `error` when it succeeded, `next_retry_at` when no retry is due.
 */
export function attemptView(r: AttemptRecord) {
  return {
    delivery_id: r.delivery_id,
    webhook_id: r.webhook_id,
    event_id: r.event_id,
    event: r.event,
    attempt: r.attempt,
    ...(r.status_code !== null ? { status_code: r.status_code } : {}),
    ...(r.error !== null ? { error: r.error } : {}),
    duration_ms: r.duration_ms,
    attempted_at: isoTime(r.attempted_at),
    ...(r.next_retry_at !== null ? { next_retry_at: isoTime(r.next_retry_at) } : {}),
    retry_count: r.retry_count,
    state: r.state,
    replay: r.replay,
  };
}

function queuedView(d: Delivery) {
  return { delivery_id: d.delivery_id, webhook_id: d.webhook_id, event_id: d.event_id, event: d.event, replay: d.replay, state: 'queued' };
}

/** https anywhere, or http to a loopback host; no credentials in the URL. */
export function checkUrl(value: string): string {
  if (value.length > MAX_URL_LENGTH) throw invalid(`url must be at most ${MAX_URL_LENGTH} characters`);
  const checked = checkTransportUrl(value);
  if (!checked.ok && checked.why === 'invalid') throw invalid('url must be an absolute URL such as https://hooks.example.com/svc');
  const url = new URL(value);
  if (url.username || url.password) throw invalid('url must not carry credentials (user:password@)');
  if (checked.ok) return value;
  if (checked.why === 'plain-http') throw invalid(`url must use https (plain http is accepted only for a loopback host such as 127.0.0.1), got http://${url.host}`);
  throw invalid(`url must use https (got ${url.protocol.replace(/:$/, '')})`);
}

/** A non-empty array of the seven event types; duplicates are dropped, order kept. */
export function checkEvents(value: unknown): EventType[] {
  if (value === undefined || value === null) throw invalid(`events is required: an array of event types (${EVENT_TYPES.join(', ')})`);
  if (!Array.isArray(value)) throw invalid('events must be an array of event type strings');
  if (value.length === 0) throw invalid('events must name at least one event type');
  const out: EventType[] = [];
  value.forEach((v, i) => {
    if (typeof v !== 'string' || !isEventType(v)) {
      // Describe, never serialize, what was sent: it may be nested thousands of levels deep.
      const shown = typeof v === 'string' ? `"${v.slice(0, 60)}"` : v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : String(v);
      throw invalid(`events[${i}] must be one of ${EVENT_TYPES.join(', ')} (got ${shown})`);
    }
    if (!out.includes(v)) out.push(v);
  });
  return out;
}

function subscriptionOf(ctx: ApiContext): Subscription {
  const sub = ctx.world.webhooks.get(ctx.account.account_id, ctx.params.id!);
  if (!sub) throw new ApiFault(404, 'webhook_not_found', `no webhook subscription ${ctx.params.id} for ${ctx.account.handle}`);
  return sub;
}

function createWebhook(ctx: ApiContext): Reply {
  const { world, account } = ctx;
  const body = objectBody(ctx.json());
  const url = checkUrl(requiredString(body, 'url'));
  const events = checkEvents(field(body, 'events'));
  const again = world.webhooks.reEnable(account, url, events);
  if (again) return ok(webhookView(again));
  if (world.webhooks.countFor(account.account_id) >= MAX_WEBHOOKS_PER_ACCOUNT) {
    throw invalid(`an account may have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhook subscriptions; delete one first`);
  }
  const secret = newWebhookSecret();
  const sub = world.webhooks.create(account, url, events, secret);
  return { status: 201, body: { ...webhookView(sub), secret }, shownOnce: ['secret'] };
}

function listWebhooks(ctx: ApiContext): Reply {
  return ok({ webhooks: ctx.world.webhooks.list(ctx.account.account_id).map(webhookView) });
}

function getWebhook(ctx: ApiContext): Reply {
  return ok(webhookView(subscriptionOf(ctx)));
}

function deleteWebhook(ctx: ApiContext): Reply {
  const sub = subscriptionOf(ctx);
  ctx.world.webhooks.remove(sub);
  return ok({ webhook_id: sub.webhook_id, deleted: true });
}

function listDeliveries(ctx: ApiContext): Reply {
  const sub = subscriptionOf(ctx);
  const limit = intParam(ctx.query, 'limit', 100, 1, 1000);
  return ok({ deliveries: ctx.world.webhooks.deliveries(sub.webhook_id, limit).map(attemptView) });
}

function replay(ctx: ApiContext): Reply {
  const sub = subscriptionOf(ctx);
  if (sub.status === 'disabled') {
    throw invalid(`webhook ${sub.webhook_id} is disabled (every delivery failed for 24 h); create it again (POST /v1/webhooks with the same url and events) to enable it, then replay`);
  }
  const eventId = ctx.params.event_id!;
  const d = ctx.world.webhooks.replay(sub, eventId);
  if (!d) throw new ApiFault(404, 'event_not_found', `no event ${eventId} for ${ctx.account.handle}`);
  return ok(queuedView(d), 202);
}

/**
 * POST /_sandbox/trigger {event, account?}: a sample event through the real engine. Its ids name
 * objects made for it (../samples.ts), and the answer gives them, so the commands it suggests
 * work. Honours Idempotency-Key: a retry does not make a second set of objects.
 */
function trigger(ctx: RequestContext): Reply {
  const { world } = ctx;
  const body = objectBody(ctx.json() ?? {});
  const type = requiredString(body, 'event');
  if (!isEventType(type)) throw invalid(`event must be one of ${EVENT_TYPES.join(', ')}`);
  const handle = optionalString(body, 'account') ?? '@alice';
  if (!HANDLE_RE.test(handle)) throw invalid('account must be an @handle such as @alice');
  const account: Account | undefined = world.store.accountByHandle(handle);
  if (!account) throw new ApiFault(404, 'account_not_found', `no sandbox account has the handle ${handle}`);
  const sample = makeSample(world, type, account);
  const { event, deliveries } = world.webhooks.trigger(sample.event);
  return ok({ event: type, event_id: event.event_id, account: account.handle, sample: true, ...sample.refs, deliveries: deliveries.map(queuedView) }, 202);
}

export function registerWebhookRoutes(routes: Routes): void {
  routes
    .apiIdempotent('POST', '/v1/webhooks', createWebhook)
    .api('GET', '/v1/webhooks', listWebhooks)
    .api('GET', '/v1/webhooks/:id', getWebhook)
    .api('DELETE', '/v1/webhooks/:id', deleteWebhook)
    .api('GET', '/v1/webhooks/:id/deliveries', listDeliveries)
    .apiIdempotent('POST', '/v1/webhooks/:id/replay/:event_id', replay)
    .admin('POST', '/_sandbox/trigger', trigger, { idempotent: true });
}
