// The webhook delivery engine. It listens to the state's events, turns each into one signed
// event per account side (payloads.ts), and delivers it to every subscription of the account
// (and of its parent, for an agent) that asked for that type. Delivery never runs in a request's
// path: an event only schedules a task on the sandbox scheduler; the task hands the attempt to a
// bounded queue (queue.ts) and returns, so advancing the clock never waits for HTTP. Failed
// attempts are retried on the sandbox clock (schedule.ts). Deleting a subscription cancels its
// deliveries at once: waiting ones never start, in-flight ones are aborted and their results
// ignored. The delivery limits (limits.ts) bound what a failing subscription costs: at most
// 1,000 pending deliveries each, and disabled (no new deliveries) once every attempt failed
// for 24 h, until it is created again; the queue shares its slots fairly between accounts.
// Modules: payloads.ts (fan-out, bodies), queue.ts (bounded concurrency, fair between
// accounts), schedule.ts (retry times), limits.ts (cap, disabling), sender.ts (one HTTP attempt).
// Subscriptions, stored events, deliveries and attempt logs are the store's (store/webhooks.ts):
// every change goes through a store method, in the transaction of the change that caused it (an
// event's deliveries commit with the transfer that fired it). The engine keeps only what runs:
// each delivery's due-time task and its attempt in flight. resume() schedules the stored
// deliveries after a start or a reload.
import { signPayload } from '../../crypto/webhook-signature.js';
import { sameEventTypes, type EventType } from '../../domain/events.js';
import type { SandboxClock } from '../clock.js';
import { randomAlnum } from '../ids.js';
import type { Account } from '../records.js';
import type { Scheduler, TaskHandle } from '../scheduler.js';
import type { SandboxEvent } from '../store/events.js';
import type { Store } from '../store/store.js';
import { DROPPED_AT_CAP, DROPPED_DISABLED, endedRecord, healthAfter, PENDING_PER_WEBHOOK } from './limits.js';
import { audienceOf, eventBody, newEventId, sampleSide, sidesOf, withTimestamp, type EventSide } from './payloads.js';
import { AttemptQueue } from './queue.js';
import { nextAttempt } from './schedule.js';
import { DEFAULT_TIMEOUT_MS, HttpSender, type Send } from './sender.js';
import type { AttemptOutcome, AttemptRecord, Delivery, StoredEvent, Subscription } from './types.js';

export const newWebhookId = () => `wh_${randomAlnum(20)}`;
export const newDeliveryId = () => `dlv_${randomAlnum(24)}`;

export interface WebhookEngineOptions {
  /** Time limit of one attempt. Default 15 s. */
  timeoutMs: number;
  /** Attempts in flight at once, over every account (shared slots). Default 16. */
  maxInFlight: number;
  /** Attempts in flight to one receiver (origin). Default 4. */
  maxPerOrigin: number;
  /** Slots each account (with its agents) has of its own, beyond the shared ones. Default 2. */
  reservedPerAccount: number;
  /** Deliveries one subscription may have pending; a new one beyond ends the oldest. Default 1,000. */
  pendingPerWebhook: number;
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
  reservedPerAccount: 2,
  pendingPerWebhook: PENDING_PER_WEBHOOK,
  random: Math.random,
  userAgent: 'svc-sandbox-webhooks/0.1',
  eventsPerAccount: 10_000,
  attemptsPerWebhook: 1_000,
};

/** What runs for one stored delivery: its due-time task, then its attempt in flight. */
interface Run {
  task?: TaskHandle;
  controller?: AbortController;
}

export interface EngineDeps {
  store: Store;
  scheduler: Scheduler;
  clock: SandboxClock;
  /** An attempt that fails inside the sandbox itself (not the receiver's fault) is reported here. */
  onError: (err: unknown) => void;
}

export class WebhookEngine {
  readonly options: WebhookEngineOptions;
  /** By delivery id; replaced wholesale by resume(), so an attempt can tell it was superseded. */
  private readonly runs = new Map<string, Run>();
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
    if (this.options.send) {
      this.send = this.options.send;
    } else {
      this.sender = new HttpSender(() => deps.clock.now(), this.options.timeoutMs);
      this.send = this.sender.send;
    }
    const { maxInFlight, maxPerOrigin, reservedPerAccount } = this.options;
    this.queue = new AttemptQueue({ maxInFlight, maxPerOrigin, reservedPerAccount }, (id) => this.attempt(id), () => this.settled(), deps.onError);
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
    return this.deps.store.addSubscription(sub);
  }

  /**
   * "Creating it again" (docs/webhooks.md): the account's disabled subscription with this url
   * and the same event types (in any order) is active again, with its id, secret and log; the
   * oldest such one when there are several. Undefined when the account has none.
   */
  reEnable(account: Account, url: string, events: readonly EventType[]): Subscription | undefined {
    const sub = this.list(account.account_id).find((s) => s.status === 'disabled' && s.url === url && sameEventTypes(s.events, events));
    if (!sub) return undefined;
    this.deps.store.setWebhookHealth(sub.webhook_id, {});
    this.options.log?.(`webhook ${sub.webhook_id} enabled again`);
    return sub;
  }

  /** The account's subscriptions, oldest first. */
  list(accountId: string): readonly Subscription[] {
    return this.deps.store.webhooks.subscriptionsOf(accountId);
  }

  countFor(accountId: string): number {
    return this.list(accountId).length;
  }

  /** The subscription if it is this account's (another account's is not found). */
  get(accountId: string, webhookId: string): Subscription | undefined {
    return this.deps.store.webhooks.subscriptionFor(accountId, webhookId);
  }

  /** Deletes at once: waiting deliveries never start, in-flight attempts are aborted and ignored. */
  remove(sub: Subscription): void {
    for (const id of this.deps.store.removeSubscription(sub.webhook_id)) this.cancel(id);
  }

  /** Attempt records, newest first. */
  deliveries(webhookId: string, limit: number): AttemptRecord[] {
    const list = this.deps.store.webhooks.attemptsOf(webhookId);
    return [...list].reverse().sort((a, b) => b.attempted_at - a.attempted_at).slice(0, limit);
  }

  // ---- events ------------------------------------------------------------------------------

  private onSandboxEvent(e: SandboxEvent): void {
    if (this.quiet > 0 || this.deps.store.webhooks.subscriptionCount === 0 || this.closed) return; // quiet (a sample's objects being made), or nobody listens: nothing is stored
    for (const side of sidesOf(this.deps.store, e)) this.publish(side, false);
  }

  /**
   * Stores the event and queues a delivery to each subscription of its audience that asked for
   * its type. An event nobody in its audience subscribes to (with any type) is not stored,
   * unless `force` (samples).
   */
  private publish(side: EventSide, force: boolean): { event: StoredEvent | undefined; deliveries: Delivery[] } {
    const { store } = this.deps;
    const audience = audienceOf(store, side.account);
    const subs = store.webhooks.subscriptionsOfAll(audience);
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
    return store.tx(() => {
      store.addWebhookEvent(event, this.options.eventsPerAccount);
      // A disabled subscription gets nothing; the event is still kept, for replay once enabled.
      const deliveries = subs.filter((s) => s.events.includes(side.type) && s.status !== 'disabled').map((s) => this.enqueue(s, event, false));
      return { event, deliveries };
    });
  }

  /**
   * Runs `fn` (synchronous) without publishing the events it fires: `svc sandbox trigger` makes
   * the objects behind a sample this way, then sends the sample alone (trigger()).
   */
  quietly<T>(fn: () => T): T {
    this.quiet++;
    try {
      return fn();
    } finally {
      this.quiet--;
    }
  }
  private quiet = 0;

  /** A sample of event `e` (its objects exist) through the real engine (`svc sandbox trigger`). */
  trigger(e: SandboxEvent): { event: StoredEvent; deliveries: Delivery[] } {
    const side = sampleSide(this.deps.store, e);
    if (!side) throw new Error(`no account sees a sample ${e.type}`);
    const { event, deliveries } = this.publish(side, true);
    return { event: event!, deliveries };
  }

  /** Sends a stored event to a subscription again, as a new delivery; undefined when the event was never for its account. */
  replay(sub: Subscription, eventId: string): Delivery | undefined {
    const event = this.deps.store.webhooks.event(eventId);
    if (!event || !event.audience.includes(sub.account_id)) return undefined;
    return this.enqueue(sub, event, true);
  }

  // ---- deliveries --------------------------------------------------------------------------

  /** Queues a delivery; at the cap, the subscription's oldest pending one ends (`exhausted`) first. */
  private enqueue(sub: Subscription, event: StoredEvent, replay: boolean): Delivery {
    const { store } = this.deps;
    const cap = this.options.pendingPerWebhook;
    return store.tx(() => {
      const over = store.webhooks.deliveryCountOf(sub.webhook_id) - cap + 1;
      const oldest: Delivery[] = [];
      for (const d of store.webhooks.deliveriesOf(sub.webhook_id)) {
        if (oldest.length >= over) break;
        oldest.push(d);
      }
      for (const d of oldest) this.end(d, DROPPED_AT_CAP(cap));
      return this.add(sub, event, replay);
    });
  }

  private add(sub: Subscription, event: StoredEvent, replay: boolean): Delivery {
    const d: Delivery = {
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
    this.deps.store.addDelivery(d);
    // Due now: it starts once the change that queued it has committed.
    this.deps.store.onCommit(() => this.schedule(d));
    return d;
  }

  /** A task at the due time; it only hands the attempt to the queue (never waits for HTTP). */
  private schedule(d: Delivery): void {
    const run = this.runs.get(d.delivery_id) ?? {};
    this.runs.set(d.delivery_id, run);
    run.task = this.deps.scheduler.at(d.due_at, () => {
      run.task = undefined;
      if (this.runs.get(d.delivery_id) !== run || this.closed) return;
      const { store } = this.deps;
      const origin = store.webhooks.originOf(d.webhook_id);
      const sub = store.webhooks.subscription(d.webhook_id);
      if (!origin || !sub) return;
      // Slots are shared by account; an agent's subscriptions count with its owner's.
      const account = store.account(sub.account_id)?.parent_account_id ?? sub.account_id;
      this.queue.push(account, origin, d.delivery_id);
    });
  }

  /**
   * Ends a pending delivery without another attempt, logged as `exhausted` with the reason; what
   * runs for it stops once that has committed (the caller's transaction).
   */
  private end(d: Delivery, why: string, log = true): void {
    const { store } = this.deps;
    store.endAttempt(endedRecord(d, this.deps.clock.now(), why), this.options.attemptsPerWebhook, null);
    store.onCommit(() => this.cancel(d.delivery_id));
    if (log) this.options.log?.(`webhook ${d.webhook_id} ${d.delivery_id} ${d.event} ended: ${why}`);
  }

  private cancel(deliveryId: string): void {
    const run = this.runs.get(deliveryId);
    run?.task?.cancel();
    run?.controller?.abort();
    this.runs.delete(deliveryId);
  }

  /**
   * Runs one attempt (called by the queue). The stored delivery changes only when the attempt
   * ends: one cut off by shutdown counts as not made, and is made again after a restart.
   */
  private async attempt(id: string): Promise<void> {
    const { webhooks } = this.deps.store;
    const d = webhooks.delivery(id);
    const sub = d && webhooks.subscription(d.webhook_id);
    const run = this.runs.get(id);
    if (!d || !sub || !run || this.closed || run.controller) return; // deleted, reset or shutting down meanwhile
    const n = d.attempts + 1;
    const startedAt = this.deps.clock.now();
    const firstAttemptAt = d.first_attempt_at ?? startedAt;
    const body = Buffer.from(withTimestamp(d.body, startedAt), 'utf8');
    const controller = new AbortController();
    run.controller = controller;
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
      run.controller = undefined;
    }
    // Shut down, deleted, reset or reloaded while in flight: the result is ignored.
    if (controller.signal.aborted || this.closed || this.runs.get(id) !== run || webhooks.delivery(id) !== d) return;
    this.finish(d, sub, n, startedAt, firstAttemptAt, outcome);
  }

  private finish(d: Delivery, sub: Subscription, n: number, startedAt: number, firstAttemptAt: number, outcome: AttemptOutcome): void {
    const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const health = healthAfter(sub, { ok, attemptedAt: startedAt, now: this.deps.clock.now() });
    let next: { at: number; final: boolean } | null = null;
    if (!ok && !health.disable) {
      next = nextAttempt({
        attempt: n,
        firstAttemptAt,
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
    const ended = store.tx(() => {
      store.endAttempt(record, this.options.attemptsPerWebhook, next);
      if (next) store.onCommit(() => this.schedule(d));
      else this.runs.delete(d.delivery_id);
      if (health.changed) store.setWebhookHealth(sub.webhook_id, health.health);
      if (!health.disable) return 0;
      const others = [...store.webhooks.deliveriesOf(sub.webhook_id)];
      for (const other of others) this.end(other, DROPPED_DISABLED, false); // one line for them all, below
      return others.length;
    });
    this.options.log?.(
      `webhook ${sub.webhook_id} ${d.delivery_id} ${d.event} attempt ${n}: ${outcome.status ?? outcome.error} ${outcome.durationMs}ms ${record.state}${next ? ` (next ${new Date(next.at).toISOString()})` : ''}`,
    );
    if (health.disable) this.options.log?.(`webhook ${sub.webhook_id} disabled: every delivery failed for 24 h; ${ended} pending ended (create it again to enable it)`);
  }

  // ---- waiting, reset, shutdown --------------------------------------------------------------

  /** Deliveries waiting for their due time, queued or in flight. */
  get pending(): number {
    return this.deps.store.webhooks.deliveryCount;
  }

  /** Attempts in flight or waiting for a slot. */
  get busy(): number {
    return this.queue.busy;
  }

  /** Attempts in flight. */
  get inFlight(): number {
    return this.queue.inFlight;
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

  /** Sandbox reset (the store forgets the state): what runs stops, in-flight attempts are aborted and ignored. */
  private clear(): void {
    for (const id of [...this.runs.keys()]) this.cancel(id);
    this.queue.clear();
    this.settled();
  }

  /**
   * Shutdown: in-flight attempts are aborted; the store still holds them as not made, so they are
   * made again (same attempt number) after a restart.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const run of this.runs.values()) {
      run.task?.cancel();
      run.task = undefined;
      run.controller?.abort();
    }
    this.queue.clear();
    this.settled();
    await this.sender?.close();
  }

  // ---- starting again ----------------------------------------------------------------------

  /**
   * Schedules every stored delivery (after a start, or a reload after a rollback; overdue ones
   * run at once). What ran before is dropped: an attempt still in flight is aborted and ignored.
   */
  resume(): void {
    this.clear();
    for (const d of this.deps.store.webhooks.deliveries()) this.schedule(d);
  }
}
