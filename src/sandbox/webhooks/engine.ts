// The webhook delivery engine. It listens to the state's events, turns each into one signed
// event per account side (payloads.ts), and delivers it to every subscription of the account
// (and of its parent, for an agent) that asked for that type. Delivery never runs in a request's
// path: an event only schedules a task on the sandbox scheduler; the task hands the attempt to a
// bounded queue (queue.ts) and returns, so advancing the clock never waits for HTTP. Failed
// attempts are retried on the sandbox clock (schedule.ts). Deleting a subscription cancels its
// deliveries at once: waiting ones never start, in-flight ones are aborted and their results
// ignored.
// Modules: payloads.ts (fan-out, bodies), subscriptions.ts (subscriptions, stored events),
// queue.ts (bounded concurrency), schedule.ts (retry times), sender.ts (one HTTP attempt),
// Every change of a subscription, event, delivery or attempt is written through the store, in
// the transaction of the change that caused it (an event's deliveries commit with the transfer
// that fired it); restore() loads them back after a restart.
import { signPayload } from '../../crypto/webhook-signature.js';
import type { EventType } from '../../domain/events.js';
import type { Sealer } from '../crypto/sealer.js';
import type { SandboxClock } from '../clock.js';
import { randomAlnum } from '../ids.js';
import type { Account, SubscriptionRecord } from '../records.js';
import type { Scheduler, TaskHandle } from '../scheduler.js';
import { aad } from '../seal-contexts.js';
import type { SandboxEvent } from '../store/events.js';
import type { Store, WebhookRecords } from '../store/store.js';
import { audienceOf, eventBody, newEventId, sampleSide, sidesOf, withTimestamp, type EventSide } from './payloads.js';
import { AttemptQueue } from './queue.js';
import { nextAttempt } from './schedule.js';
import { DEFAULT_TIMEOUT_MS, HttpSender, type Send } from './sender.js';
import { EventStore, Subscriptions } from './subscriptions.js';
import type { AttemptOutcome, AttemptRecord, Delivery, StoredEvent, Subscription } from './types.js';

export const newWebhookId = () => `wh_${randomAlnum(20)}`;
export const newDeliveryId = () => `dlv_${randomAlnum(24)}`;

export interface WebhookEngineOptions {
  /** Time limit of one attempt. Default 15 s. */
  timeoutMs: number;
  /** Attempts in flight at once. Default 16. */
  maxInFlight: number;
  /** Attempts in flight to one receiver (origin). Default 4. */
  maxPerOrigin: number;
  /** Jitter source, [0, 1). */
  random: () => number;
  userAgent: string;
  /** Events kept per account for replay (oldest dropped first). */
  eventsPerAccount: number;
  /** Attempt records kept per subscription. */
  attemptsPerWebhook: number;
  /** One line per attempt (never a body, a secret or a URL). */
  log?: (line: string) => void;
  /** Replaces the HTTP sender (tests). */
  send?: Send;
}

export const WEBHOOK_DEFAULTS: WebhookEngineOptions = {
  timeoutMs: DEFAULT_TIMEOUT_MS,
  maxInFlight: 16,
  maxPerOrigin: 4,
  random: Math.random,
  userAgent: 'svc-sandbox-webhooks/0.1',
  eventsPerAccount: 10_000,
  attemptsPerWebhook: 1_000,
};

interface Live extends Delivery {
  task?: TaskHandle;
  controller?: AbortController;
  /** Sandbox time the attempt in flight started. */
  startedAt?: number;
}

export interface EngineDeps {
  store: Store;
  scheduler: Scheduler;
  clock: SandboxClock;
  sealer: Sealer;
  /** An attempt that fails inside the sandbox itself (not the receiver's fault) is reported here. */
  onError: (err: unknown) => void;
}

export class WebhookEngine {
  readonly options: WebhookEngineOptions;
  private readonly subs = new Subscriptions();
  private readonly events: EventStore;
  /** Deliveries still to be made (waiting for their due time, queued or in flight). */
  private readonly live = new Map<string, Live>();
  /** Per subscription: attempt records in the order they ended. */
  private readonly attempts = new Map<string, AttemptRecord[]>();
  private readonly queue: AttemptQueue;
  private readonly sender: HttpSender | undefined;
  private readonly send: Send;
  private waiters: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly deps: EngineDeps,
    options: Partial<WebhookEngineOptions> = {},
  ) {
    this.options = { ...WEBHOOK_DEFAULTS, ...options };
    this.events = new EventStore(this.options.eventsPerAccount);
    if (this.options.send) {
      this.send = this.options.send;
    } else {
      this.sender = new HttpSender(() => deps.clock.now(), this.options.timeoutMs);
      this.send = this.sender.send;
    }
    this.queue = new AttemptQueue(this.options.maxInFlight, this.options.maxPerOrigin, (id) => this.attempt(id), () => this.settled(), deps.onError);
    const { store } = deps;
    const onEvent = (e: SandboxEvent) => this.onSandboxEvent(e);
    store.on('transfer.initiated', onEvent);
    store.on('transfer.confirmed', onEvent);
    store.on('transfer.failed', onEvent);
    store.on('agent.transaction.pending_approval', onEvent);
    store.on('agent.transaction.approved', onEvent);
    store.on('agent.transaction.rejected', onEvent);
    store.on('agent.policy.updated', onEvent);
    store.on('state.reset', () => this.clear());
  }

  // ---- subscriptions -----------------------------------------------------------------------

  create(account: Account, url: string, events: EventType[], secret: string): Subscription {
    const sub: Subscription = { webhook_id: newWebhookId(), account_id: account.account_id, url, events, secret, created_at: this.deps.clock.now() };
    this.deps.store.putSubscription(this.sealed(sub));
    this.subs.add(sub);
    return sub;
  }

  /** The account's subscriptions, oldest first. */
  list(accountId: string): readonly Subscription[] {
    return this.subs.of(accountId);
  }

  countFor(accountId: string): number {
    return this.subs.of(accountId).length;
  }

  /** The subscription if it is this account's (another account's is not found). */
  get(accountId: string, webhookId: string): Subscription | undefined {
    return this.subs.get(accountId, webhookId);
  }

  /** Deletes at once: waiting deliveries never start, in-flight attempts are aborted and ignored. */
  remove(sub: Subscription): void {
    const doomed = [...this.live.values()].filter((d) => d.webhook_id === sub.webhook_id);
    this.deps.store.dropSubscription(sub.webhook_id, doomed.map((d) => d.delivery_id));
    this.subs.delete(sub);
    for (const d of doomed) this.cancel(d);
    this.attempts.delete(sub.webhook_id);
  }

  /** Attempt records, newest first. */
  deliveries(webhookId: string, limit: number): AttemptRecord[] {
    const list = this.attempts.get(webhookId) ?? [];
    return [...list].reverse().sort((a, b) => b.attempted_at - a.attempted_at).slice(0, limit);
  }

  // ---- events ------------------------------------------------------------------------------

  private onSandboxEvent(e: SandboxEvent): void {
    if (this.subs.size === 0 || this.closed) return; // nobody listens: nothing is stored
    for (const side of sidesOf(this.deps.store, e)) this.publish(side, false);
  }

  /**
   * Stores the event and queues a delivery to each subscription of its audience that asked for
   * its type. An event nobody in its audience subscribes to (with any type) is not stored,
   * unless `force` (samples).
   */
  private publish(side: EventSide, force: boolean): { event: StoredEvent | undefined; deliveries: Delivery[] } {
    const audience = audienceOf(this.deps.store, side.account);
    const subs = this.subs.ofAll(audience);
    if (!subs.length && !force) return { event: undefined, deliveries: [] };
    const event_id = newEventId();
    const event: StoredEvent = {
      event_id,
      type: side.type,
      account_id: side.account.account_id,
      audience,
      occurred_at: side.occurredAt,
      body: eventBody(event_id, side),
    };
    return this.deps.store.tx(() => {
      this.deps.store.putEvent(event, this.events.add(event));
      const deliveries = subs.filter((s) => s.events.includes(side.type)).map((s) => this.enqueue(s, event, false));
      return { event, deliveries };
    });
  }

  /** A sample event through the real engine (`svc sandbox trigger`). */
  trigger(type: EventType, account: Account, approvalWindowMs: number): { event: StoredEvent; deliveries: Delivery[] } {
    const { event, deliveries } = this.publish(sampleSide(type, account, this.deps.clock.now(), approvalWindowMs), true);
    return { event: event!, deliveries };
  }

  /** Sends a stored event to a subscription again, as a new delivery; undefined when the event was never for its account. */
  replay(sub: Subscription, eventId: string): Delivery | undefined {
    const event = this.events.get(eventId);
    if (!event || !event.audience.includes(sub.account_id)) return undefined;
    return this.enqueue(sub, event, true);
  }

  // ---- deliveries --------------------------------------------------------------------------

  private enqueue(sub: Subscription, event: StoredEvent, replay: boolean): Delivery {
    const d: Live = {
      delivery_id: newDeliveryId(),
      webhook_id: sub.webhook_id,
      event_id: event.event_id,
      event: event.type,
      body: event.body,
      attempts: 0,
      first_attempt_at: null,
      due_at: this.deps.clock.now(),
      final: false,
      replay,
    };
    this.deps.store.putDelivery(d);
    this.live.set(d.delivery_id, d);
    // Due now: it starts once the change that queued it has committed.
    this.deps.store.onCommit(() => this.schedule(d));
    return d;
  }

  /** A task at the due time; it only hands the attempt to the queue (never waits for HTTP). */
  private schedule(d: Live): void {
    d.task = this.deps.scheduler.at(d.due_at, () => {
      d.task = undefined;
      if (this.live.get(d.delivery_id) !== d || this.closed) return;
      const origin = this.subs.origin(d.webhook_id);
      if (!origin) return;
      this.queue.push(origin, d.delivery_id);
    });
  }

  private cancel(d: Live): void {
    d.task?.cancel();
    d.task = undefined;
    d.controller?.abort();
    this.live.delete(d.delivery_id);
  }

  /** Runs one attempt (called by the queue). */
  private async attempt(id: string): Promise<void> {
    const d = this.live.get(id);
    const sub = d && this.subs.byWebhookId(d.webhook_id);
    if (!d || !sub || this.closed || d.controller) return; // deleted, reset or shutting down meanwhile
    const n = ++d.attempts;
    const startedAt = this.deps.clock.now();
    d.first_attempt_at ??= startedAt;
    d.startedAt = startedAt;
    const body = Buffer.from(withTimestamp(d.body, startedAt), 'utf8');
    const controller = new AbortController();
    d.controller = controller;
    let outcome: AttemptOutcome;
    try {
      outcome = await this.send({
        url: sub.url,
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': this.options.userAgent,
          'x-service-signature': signPayload(sub.secret, body),
          'x-service-event-id': d.event_id,
          'x-service-delivery-attempt': String(n),
        },
        signal: controller.signal,
      });
    } catch (err) {
      outcome = { status: null, error: 'internal error', durationMs: 0, timedOut: false };
      this.deps.onError(err);
    } finally {
      d.controller = undefined;
      d.startedAt = undefined;
    }
    if (this.closed && this.live.get(id) === d) {
      // Shut down while in flight: the attempt counts as not made; it is made again after a restart.
      d.attempts = n - 1;
      if (n === 1) d.first_attempt_at = null;
      d.due_at = startedAt;
      return;
    }
    // Deleted or reset while in flight: the result is ignored.
    if (controller.signal.aborted || this.closed || this.live.get(id) !== d || !this.subs.has(sub.webhook_id)) return;
    this.finish(d, sub, n, startedAt, outcome);
  }

  private finish(d: Live, sub: Subscription, n: number, startedAt: number, outcome: AttemptOutcome): void {
    const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    let next: { at: number; final: boolean } | null = null;
    if (!ok) {
      next = nextAttempt({
        attempt: n,
        firstAttemptAt: d.first_attempt_at ?? startedAt,
        failedAt: this.deps.clock.now(),
        wasFinal: d.final,
        timedOut: outcome.timedOut,
        ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
        random: this.options.random,
      });
    }
    const record: AttemptRecord = {
      delivery_id: d.delivery_id,
      webhook_id: d.webhook_id,
      event_id: d.event_id,
      event: d.event,
      attempt: n,
      status_code: outcome.status,
      error: ok ? null : outcome.error,
      duration_ms: outcome.durationMs,
      attempted_at: startedAt,
      next_retry_at: next?.at ?? null,
      retry_count: n - 1,
      state: ok ? 'succeeded' : next ? 'retrying' : 'exhausted',
      replay: d.replay,
    };
    // The attempt's record and what comes next (a retry, or nothing) commit together.
    const { store } = this.deps;
    store.tx(() => {
      store.addAttempt(record, this.options.attemptsPerWebhook);
      this.addRecord(record);
      if (next) {
        d.due_at = next.at;
        d.final = next.final;
        store.putDelivery(d);
        store.onCommit(() => this.schedule(d));
      } else {
        store.dropDelivery(d.delivery_id);
        this.live.delete(d.delivery_id);
      }
    });
    this.options.log?.(
      `webhook ${sub.webhook_id} ${d.delivery_id} ${d.event} attempt ${n}: ${outcome.status ?? outcome.error} ${outcome.durationMs}ms ${record.state}${next ? ` (next ${new Date(next.at).toISOString()})` : ''}`,
    );
  }

  private addRecord(r: AttemptRecord): void {
    let list = this.attempts.get(r.webhook_id);
    if (!list) this.attempts.set(r.webhook_id, (list = []));
    list.push(r);
    if (list.length > this.options.attemptsPerWebhook) list.splice(0, list.length - this.options.attemptsPerWebhook);
  }

  // ---- waiting, reset, shutdown --------------------------------------------------------------

  /** Deliveries waiting for their due time, queued or in flight. */
  get pending(): number {
    return this.live.size;
  }

  /** Attempts in flight or waiting for a slot. */
  get busy(): number {
    return this.queue.busy;
  }

  private settled(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /**
   * Resolves when no attempt is in flight, queued, or due on the sandbox clock. Attempts that a
   * clock advance made due are included; retries scheduled for later are not. For tests and
   * tools: nothing in the sandbox waits on it.
   */
  async idle(): Promise<void> {
    for (;;) {
      await this.deps.scheduler.runDue();
      if (this.queue.busy === 0 || this.closed) return;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Sandbox reset: everything is forgotten, in-flight attempts are aborted and ignored. */
  private clear(): void {
    for (const d of this.live.values()) this.cancel(d);
    this.live.clear();
    this.queue.clear();
    this.subs.clear();
    this.events.clear();
    this.attempts.clear();
    this.settled();
  }

  /**
   * Shutdown: in-flight attempts are aborted; the store still holds them as not made, so they are
   * made again (same attempt number) after a restart.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const d of this.live.values()) {
      d.task?.cancel();
      d.task = undefined;
      d.controller?.abort();
    }
    this.queue.clear();
    this.settled();
    await this.sender?.close();
  }

  // ---- loading ------------------------------------------------------------------------------

  /** A subscription as stored: its secret sealed under the sandbox key. */
  private sealed(sub: Subscription): SubscriptionRecord {
    const { secret, ...rest } = sub;
    return { ...rest, secret_sealed: this.deps.sealer.sealText(secret, aad.webhookSecret(sub.webhook_id)) };
  }

  /**
   * Loads the stored records into an empty engine and schedules their deliveries (overdue ones
   * run at once). Throws SealError for a secret that does not open with the key file.
   */
  restore(records: WebhookRecords): void {
    this.clear();
    for (const s of records.subscriptions) {
      const { secret_sealed, ...rest } = s;
      this.subs.add({ ...rest, secret: this.deps.sealer.openText(secret_sealed, aad.webhookSecret(s.webhook_id)) });
    }
    for (const e of [...records.events].sort((a, b) => a.occurred_at - b.occurred_at)) this.events.add(e);
    for (const r of records.attempts) if (this.subs.has(r.webhook_id)) this.addRecord(r);
    for (const d of records.deliveries) {
      if (!this.subs.has(d.webhook_id)) continue;
      const live: Live = { ...d };
      this.live.set(d.delivery_id, live);
      this.schedule(live);
    }
  }
}
