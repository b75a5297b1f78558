// Subscriptions by id and by account, with each one's receiver origin (the unit of the
// per-receiver concurrency limit), and the stored events replay draws on (a bounded number per
// account, oldest dropped first).
import type { StoredEvent, Subscription } from './types.js';

export class Subscriptions {
  private readonly byId = new Map<string, Subscription>();
  private readonly byAccount = new Map<string, Subscription[]>();
  private readonly origins = new Map<string, string>();

  get size(): number {
    return this.byId.size;
  }

  values(): IterableIterator<Subscription> {
    return this.byId.values();
  }

  add(sub: Subscription): void {
    this.byId.set(sub.webhook_id, sub);
    const list = this.byAccount.get(sub.account_id);
    if (list) list.push(sub);
    else this.byAccount.set(sub.account_id, [sub]);
    this.origins.set(sub.webhook_id, new URL(sub.url).origin);
  }

  delete(sub: Subscription): void {
    this.byId.delete(sub.webhook_id);
    this.origins.delete(sub.webhook_id);
    const list = this.byAccount.get(sub.account_id);
    if (!list) return;
    const i = list.indexOf(sub);
    if (i >= 0) list.splice(i, 1);
    if (!list.length) this.byAccount.delete(sub.account_id);
  }

  has(webhookId: string): boolean {
    return this.byId.has(webhookId);
  }

  byWebhookId(webhookId: string): Subscription | undefined {
    return this.byId.get(webhookId);
  }

  /** The subscription if it belongs to the account (another account's is not found). */
  get(accountId: string, webhookId: string): Subscription | undefined {
    const sub = this.byId.get(webhookId);
    return sub && sub.account_id === accountId ? sub : undefined;
  }

  /** The account's subscriptions, oldest first. */
  of(accountId: string): readonly Subscription[] {
    return this.byAccount.get(accountId) ?? [];
  }

  /** Every subscription of the given accounts. */
  ofAll(accountIds: readonly string[]): Subscription[] {
    return accountIds.flatMap((a) => this.byAccount.get(a) ?? []);
  }

  origin(webhookId: string): string | undefined {
    return this.origins.get(webhookId);
  }

  clear(): void {
    this.byId.clear();
    this.byAccount.clear();
    this.origins.clear();
  }
}

export class EventStore {
  private readonly byId = new Map<string, StoredEvent>();
  /** Per account concerned: its event ids, oldest first. */
  private readonly byAccount = new Map<string, Set<string>>();

  constructor(private readonly perAccount: number) {}

  /** Adds an event; returns the ids of the events it pushed out (the account's oldest). */
  add(event: StoredEvent): string[] {
    this.byId.set(event.event_id, event);
    let ids = this.byAccount.get(event.account_id);
    if (!ids) this.byAccount.set(event.account_id, (ids = new Set()));
    ids.add(event.event_id);
    const evicted: string[] = [];
    while (ids.size > this.perAccount) {
      const oldest = ids.values().next().value as string;
      ids.delete(oldest);
      this.byId.delete(oldest);
      evicted.push(oldest);
    }
    return evicted;
  }

  get(eventId: string): StoredEvent | undefined {
    return this.byId.get(eventId);
  }

  values(): IterableIterator<StoredEvent> {
    return this.byId.values();
  }

  clear(): void {
    this.byId.clear();
    this.byAccount.clear();
  }
}
