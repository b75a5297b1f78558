// Bounded concurrency for delivery attempts, shared fairly between accounts (docs/webhooks.md,
// "Delivery limits"). Two limits bound what one receiver (scheme + host + port) and all of them
// together may hold: at most `maxPerOrigin` attempts to any one receiver, and `maxInFlight`
// shared slots. Waiting attempts take turns account by account (round robin: a free slot goes
// to the waiting account served longest ago, or never), and within an account receiver by
// receiver, so an account with a backlog does not get every free slot.
// Turns alone cannot help an account whose attempt arrives while every shared slot is held by
// another's receivers that accept and never answer (they free a slot only at the time limit):
// so each account also has `reservedPerAccount` slots of its own, used only when the shared ones
// are all taken. Another account's slow receivers can fill the shared slots, never these.

export interface QueueLimits {
  /** Shared slots: attempts in flight at once, over every account. */
  maxInFlight: number;
  /** Attempts in flight to one receiver (origin), whoever's they are. */
  maxPerOrigin: number;
  /** Slots of each account's own, beyond the shared ones. */
  reservedPerAccount: number;
}

type Slot = 'shared' | 'reserved';

export class AttemptQueue {
  /** Waiting jobs per account, then per origin (Map order is the origins' turn order); an entry is present only while it has some. */
  private readonly waiting = new Map<string, Map<string, string[]>>();
  /** When each account last got a slot (a tick), kept while it has attempts waiting or in flight. */
  private readonly servedAt = new Map<string, number>();
  private tick = 0;
  private readonly activeByOrigin = new Map<string, number>();
  private readonly reservedByAccount = new Map<string, number>();
  private readonly activeByAccount = new Map<string, number>();
  private shared = 0;
  private reserved = 0;
  private queued = 0;

  constructor(
    private readonly limits: QueueLimits,
    private readonly run: (id: string) => Promise<void>,
    private readonly onSettled: () => void,
    /** A job that throws (a bug: attempts record their own failures) is reported here. */
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Attempts in flight plus those waiting for a slot. */
  get busy(): number {
    return this.shared + this.reserved + this.queued;
  }

  get inFlight(): number {
    return this.shared + this.reserved;
  }

  /** Attempts of one account in flight. */
  inFlightOf(account: string): number {
    return this.activeByAccount.get(account) ?? 0;
  }

  /** Attempts of one account waiting for a slot. */
  waitingOf(account: string): number {
    let n = 0;
    for (const list of this.waiting.get(account)?.values() ?? []) n += list.length;
    return n;
  }

  push(account: string, origin: string, id: string): void {
    let origins = this.waiting.get(account);
    if (!origins) this.waiting.set(account, (origins = new Map()));
    const list = origins.get(origin);
    if (list) list.push(id);
    else origins.set(origin, [id]);
    this.queued++;
    this.pump();
  }

  /** Forgets every waiting job (a job already running finishes on its own). */
  clear(): void {
    this.waiting.clear();
    for (const account of this.servedAt.keys()) if (!this.activeByAccount.has(account)) this.servedAt.delete(account);
    this.queued = 0;
  }

  /** The slot an account's next attempt would take now, if any. */
  private slotFor(account: string): Slot | undefined {
    if (this.shared < this.limits.maxInFlight) return 'shared';
    if ((this.reservedByAccount.get(account) ?? 0) < this.limits.reservedPerAccount) return 'reserved';
    return undefined;
  }

  private pump(): void {
    while (this.queued > 0 && this.startNext());
  }

  /** Starts the job whose turn it is among those that may start; false when none may. */
  private startNext(): boolean {
    let pick: { account: string; origins: Map<string, string[]>; origin: string; list: string[]; slot: Slot; served: number } | undefined;
    for (const [account, origins] of this.waiting) {
      const served = this.servedAt.get(account) ?? -1;
      if (pick && served >= pick.served) continue;
      const slot = this.slotFor(account);
      if (!slot) continue;
      for (const [origin, list] of origins) {
        if ((this.activeByOrigin.get(origin) ?? 0) >= this.limits.maxPerOrigin) continue;
        pick = { account, origins, origin, list, slot, served };
        break;
      }
    }
    if (!pick) return false;
    const { account, origins, origin, list, slot } = pick;
    const id = list.shift()!;
    this.queued--;
    // This origin goes to the back of its account's line; each leaves when it has nothing waiting.
    origins.delete(origin);
    if (list.length) origins.set(origin, list);
    if (!origins.size) this.waiting.delete(account);
    this.servedAt.set(account, ++this.tick);
    this.start(account, origin, id, slot);
    return true;
  }

  private start(account: string, origin: string, id: string, slot: Slot): void {
    if (slot === 'shared') this.shared++;
    else {
      this.reserved++;
      bump(this.reservedByAccount, account, 1);
    }
    bump(this.activeByAccount, account, 1);
    bump(this.activeByOrigin, origin, 1);
    void this.run(id)
      .catch(this.onError)
      .finally(() => {
        if (slot === 'shared') this.shared--;
        else {
          this.reserved--;
          bump(this.reservedByAccount, account, -1);
        }
        bump(this.activeByAccount, account, -1);
        bump(this.activeByOrigin, origin, -1);
        if (!this.activeByAccount.has(account) && !this.waiting.has(account)) this.servedAt.delete(account);
        this.pump();
        this.onSettled();
      });
  }
}

/** Adds `by` to a count, dropping the entry at zero. */
function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
