// The webhook engine's state: subscriptions (by id and by account, each with its receiver's
// origin, the unit of the per-receiver concurrency limit), the stored events that replay draws on,
// the deliveries still to be made (also by subscription, oldest first, for the per-subscription
// cap), and each subscription's attempt log. The engine
// (../webhooks/engine.ts) reads them through WebhookReads and changes them only through the
// Store, which opens the transaction each change runs in. A subscription's signing secret is in
// the clear here (it must sign) and sealed in its row.
import type { Sealer } from '../crypto/sealer.js';
import { AttemptRecord, DeliveryRecord, EventRecord, SubscriptionRecord, type Delivery, type StoredEvent } from '../records.js';
import { aad } from '../seal-contexts.js';
import type { Db } from './db.js';
import { readRecords, type Statements } from './statements.js';
import type { Writer } from './transactions.js';

/** A subscription in memory: its signing secret in the clear. */
export interface Subscription extends Omit<SubscriptionRecord, 'secret_sealed'> {
  secret: string;
}

/** What the delivery limits track of a subscription (docs/webhooks.md); all absent while healthy. */
export type SubscriptionHealth = Pick<SubscriptionRecord, 'status' | 'failing_since' | 'disabled_at'>;

/** The records as the database holds them, in its order (the export shows them so). */
export interface WebhookRows {
  subscriptions: SubscriptionRecord[];
  events: StoredEvent[];
  deliveries: Delivery[];
  attempts: AttemptRecord[];
}

/** What the engine may read. */
export interface WebhookReads {
  readonly subscriptionCount: number;
  subscription(webhookId: string): Subscription | undefined;
  /** The subscription if it belongs to the account (another account's is not found). */
  subscriptionFor(accountId: string, webhookId: string): Subscription | undefined;
  /** The account's subscriptions, oldest first. */
  subscriptionsOf(accountId: string): readonly Subscription[];
  /** Every subscription of the given accounts. */
  subscriptionsOfAll(accountIds: readonly string[]): Subscription[];
  /** The receiver's origin (scheme, host and port) of a subscription. */
  originOf(webhookId: string): string | undefined;
  event(eventId: string): StoredEvent | undefined;
  delivery(deliveryId: string): Delivery | undefined;
  /** Deliveries still to be made, oldest first. */
  deliveries(): IterableIterator<Delivery>;
  readonly deliveryCount: number;
  /** A subscription's deliveries still to be made, oldest (first queued) first. */
  deliveriesOf(webhookId: string): IterableIterator<Delivery>;
  deliveryCountOf(webhookId: string): number;
  /** A subscription's attempt records in the order they ended. */
  attemptsOf(webhookId: string): readonly AttemptRecord[];
}

export class WebhookState implements WebhookReads {
  private readonly subs = new Map<string, Subscription>();
  private readonly subsByAccount = new Map<string, Subscription[]>();
  private readonly origins = new Map<string, string>();
  private readonly events = new Map<string, StoredEvent>();
  /** Per account concerned: its event ids, oldest first. */
  private readonly eventsByAccount = new Map<string, Set<string>>();
  private readonly pending = new Map<string, Delivery>();
  /** Per subscription: its pending deliveries, in the order they were queued. */
  private readonly pendingBySub = new Map<string, Map<string, Delivery>>();
  private readonly attempts = new Map<string, AttemptRecord[]>();

  constructor(
    private readonly stmt: Statements,
    private readonly writer: Writer,
    private readonly sealer: Sealer,
  ) {}

  // ---- reads --------------------------------------------------------------------------------

  get subscriptionCount(): number {
    return this.subs.size;
  }

  subscription(webhookId: string): Subscription | undefined {
    return this.subs.get(webhookId);
  }

  subscriptionFor(accountId: string, webhookId: string): Subscription | undefined {
    const sub = this.subs.get(webhookId);
    return sub && sub.account_id === accountId ? sub : undefined;
  }

  subscriptionsOf(accountId: string): readonly Subscription[] {
    return this.subsByAccount.get(accountId) ?? [];
  }

  subscriptionsOfAll(accountIds: readonly string[]): Subscription[] {
    return accountIds.flatMap((a) => this.subsByAccount.get(a) ?? []);
  }

  originOf(webhookId: string): string | undefined {
    return this.origins.get(webhookId);
  }

  event(eventId: string): StoredEvent | undefined {
    return this.events.get(eventId);
  }

  delivery(deliveryId: string): Delivery | undefined {
    return this.pending.get(deliveryId);
  }

  deliveries(): IterableIterator<Delivery> {
    return this.pending.values();
  }

  get deliveryCount(): number {
    return this.pending.size;
  }

  deliveriesOf(webhookId: string): IterableIterator<Delivery> {
    return (this.pendingBySub.get(webhookId) ?? new Map<string, Delivery>()).values();
  }

  deliveryCountOf(webhookId: string): number {
    return this.pendingBySub.get(webhookId)?.size ?? 0;
  }

  attemptsOf(webhookId: string): readonly AttemptRecord[] {
    return this.attempts.get(webhookId) ?? [];
  }

  // ---- changes (inside the Store's transaction) ---------------------------------------------

  addSubscription(sub: Subscription): void {
    this.writeSubscription(sub);
    this.indexSubscription(sub);
  }

  /** Replaces what the delivery limits track of a subscription (a field left out is cleared). */
  setHealth(webhookId: string, health: SubscriptionHealth): void {
    const sub = this.subs.get(webhookId);
    if (!sub) return;
    delete sub.status;
    delete sub.failing_since;
    delete sub.disabled_at;
    if (health.status !== undefined) sub.status = health.status;
    if (health.failing_since !== undefined) sub.failing_since = health.failing_since;
    if (health.disabled_at !== undefined) sub.disabled_at = health.disabled_at;
    this.writeSubscription(sub);
  }

  /** Deletes a subscription with its waiting deliveries and its attempt log; returns the deliveries' ids. */
  removeSubscription(webhookId: string): string[] {
    const sub = this.subs.get(webhookId);
    const dropped = [...this.deliveriesOf(webhookId)].map((d) => d.delivery_id);
    this.writer.run(this.stmt.dropSubscription, webhookId);
    for (const id of dropped) this.writer.run(this.stmt.dropDelivery, id);
    this.writer.run(this.stmt.dropAttemptsOf, webhookId);
    for (const id of dropped) this.pending.delete(id);
    this.pendingBySub.delete(webhookId);
    this.attempts.delete(webhookId);
    if (sub) this.unindexSubscription(sub);
    return dropped;
  }

  /** Stores an event, dropping the account's oldest beyond `keepPerAccount`. */
  addEvent(event: StoredEvent, keepPerAccount: number): void {
    this.writer.run(this.stmt.putEvent, event.event_id, JSON.stringify(event));
    for (const id of this.indexEvent(event, keepPerAccount)) this.writer.run(this.stmt.dropEvent, id);
  }

  addDelivery(d: Delivery): void {
    this.writer.run(this.stmt.putDelivery, d.delivery_id, JSON.stringify(deliveryRow(d)));
    this.indexDelivery(d);
  }

  /**
   * Logs an attempt (keeping the subscription's newest `keep` records) and moves its delivery on:
   * due again at `next.at`, or done (succeeded or exhausted) when `next` is null. A delivery ended
   * without an attempt (dropped at the cap, or its subscription disabled) is logged the same way.
   */
  endAttempt(record: AttemptRecord, keep: number, next: { at: number; final: boolean } | null): void {
    this.writer.run(this.stmt.addAttempt, record.webhook_id, JSON.stringify(record));
    this.writer.run(this.stmt.dropOldAttempts, record.webhook_id, record.webhook_id, keep);
    this.indexAttempt(record, keep);
    const d = this.pending.get(record.delivery_id);
    if (!d) return;
    if (!next) {
      this.writer.run(this.stmt.dropDelivery, d.delivery_id);
      this.unindexDelivery(d);
      return;
    }
    d.attempts = record.attempt;
    d.first_attempt_at ??= record.attempted_at;
    d.due_at = next.at;
    d.final = next.final;
    this.writer.run(this.stmt.putDelivery, d.delivery_id, JSON.stringify(deliveryRow(d)));
  }

  // ---- loading ------------------------------------------------------------------------------

  /**
   * Loads every record, opening each secret (SealError for one that does not open with the key
   * file). Deliveries and attempts of a subscription that is gone stay in their rows, unread.
   */
  load(db: Db): void {
    this.clear();
    for (const s of readRecords(db, 'SELECT record FROM webhook_subscriptions ORDER BY rowid', SubscriptionRecord)) {
      const { secret_sealed, ...rest } = s;
      this.indexSubscription({ ...rest, secret: this.sealer.openText(secret_sealed, aad.webhookSecret(s.webhook_id)) });
    }
    const events = readRecords(db, 'SELECT record FROM webhook_events ORDER BY rowid', EventRecord);
    for (const e of events.sort((a, b) => a.occurred_at - b.occurred_at)) this.indexEvent(e, Infinity);
    for (const d of readRecords(db, 'SELECT record FROM webhook_deliveries ORDER BY rowid', DeliveryRecord)) {
      if (this.subs.has(d.webhook_id)) this.indexDelivery(d);
    }
    for (const r of readRecords(db, 'SELECT record FROM webhook_attempts ORDER BY id', AttemptRecord)) {
      if (this.subs.has(r.webhook_id)) this.indexAttempt(r, Infinity);
    }
  }

  /** Every record as stored, in the database's order (the export). */
  static rows(db: Db): WebhookRows {
    return {
      subscriptions: readRecords(db, 'SELECT record FROM webhook_subscriptions ORDER BY rowid', SubscriptionRecord),
      events: readRecords(db, 'SELECT record FROM webhook_events ORDER BY rowid', EventRecord),
      deliveries: readRecords(db, 'SELECT record FROM webhook_deliveries ORDER BY rowid', DeliveryRecord),
      attempts: readRecords(db, 'SELECT record FROM webhook_attempts ORDER BY id', AttemptRecord),
    };
  }

  clear(): void {
    this.subs.clear();
    this.subsByAccount.clear();
    this.origins.clear();
    this.events.clear();
    this.eventsByAccount.clear();
    this.pending.clear();
    this.pendingBySub.clear();
    this.attempts.clear();
  }

  /** The row keeps the secret sealed (sealed again at each write: a new nonce, the same secret). */
  private writeSubscription(sub: Subscription): void {
    const { secret, ...rest } = sub;
    const record: SubscriptionRecord = { ...rest, secret_sealed: this.sealer.sealText(secret, aad.webhookSecret(sub.webhook_id)) };
    this.writer.run(this.stmt.putSubscription, sub.webhook_id, JSON.stringify(record));
  }

  // ---- indexes ------------------------------------------------------------------------------

  private indexDelivery(d: Delivery): void {
    this.pending.set(d.delivery_id, d);
    let mine = this.pendingBySub.get(d.webhook_id);
    if (!mine) this.pendingBySub.set(d.webhook_id, (mine = new Map()));
    mine.set(d.delivery_id, d);
  }

  private unindexDelivery(d: Delivery): void {
    this.pending.delete(d.delivery_id);
    const mine = this.pendingBySub.get(d.webhook_id);
    mine?.delete(d.delivery_id);
    if (mine && !mine.size) this.pendingBySub.delete(d.webhook_id);
  }

  private indexSubscription(sub: Subscription): void {
    this.subs.set(sub.webhook_id, sub);
    const list = this.subsByAccount.get(sub.account_id);
    if (list) list.push(sub);
    else this.subsByAccount.set(sub.account_id, [sub]);
    this.origins.set(sub.webhook_id, new URL(sub.url).origin);
  }

  private unindexSubscription(sub: Subscription): void {
    this.subs.delete(sub.webhook_id);
    this.origins.delete(sub.webhook_id);
    const list = this.subsByAccount.get(sub.account_id);
    if (!list) return;
    const i = list.indexOf(sub);
    if (i >= 0) list.splice(i, 1);
    if (!list.length) this.subsByAccount.delete(sub.account_id);
  }

  /** Adds an event; returns the ids of the events it pushed out (the account's oldest). */
  private indexEvent(event: StoredEvent, keepPerAccount: number): string[] {
    this.events.set(event.event_id, event);
    let ids = this.eventsByAccount.get(event.account_id);
    if (!ids) this.eventsByAccount.set(event.account_id, (ids = new Set()));
    ids.add(event.event_id);
    const evicted: string[] = [];
    while (ids.size > keepPerAccount) {
      const oldest = ids.values().next().value as string;
      ids.delete(oldest);
      this.events.delete(oldest);
      evicted.push(oldest);
    }
    return evicted;
  }

  private indexAttempt(r: AttemptRecord, keep: number): void {
    let list = this.attempts.get(r.webhook_id);
    if (!list) this.attempts.set(r.webhook_id, (list = []));
    list.push(r);
    if (list.length > keep) list.splice(0, list.length - keep);
  }
}

/** A delivery's stored fields, in their stored order. */
function deliveryRow(d: Delivery): Delivery {
  return {
    delivery_id: d.delivery_id, webhook_id: d.webhook_id, event_id: d.event_id, event: d.event, body: d.body,
    attempts: d.attempts, first_attempt_at: d.first_attempt_at, due_at: d.due_at, final: d.final, replay: d.replay,
  };
}
