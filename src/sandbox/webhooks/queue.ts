// Bounded concurrency for delivery attempts: at most `maxInFlight` at once overall and at most
// `maxPerOrigin` to any one receiver (scheme + host + port), so a receiver that hangs or answers
// slowly can hold only its own share; other receivers' deliveries keep flowing. Receivers take
// turns (round robin) when slots are scarce.

export class AttemptQueue {
  /** Waiting jobs per origin; an origin is present only while it has some. */
  private readonly waiting = new Map<string, string[]>();
  private readonly activeByOrigin = new Map<string, number>();
  private active = 0;
  private queued = 0;

  constructor(
    private readonly maxInFlight: number,
    private readonly maxPerOrigin: number,
    private readonly run: (id: string) => Promise<void>,
    private readonly onSettled: () => void,
    /** A job that throws (a bug: attempts record their own failures) is reported here. */
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Attempts in flight plus those waiting for a slot. */
  get busy(): number {
    return this.active + this.queued;
  }

  get inFlight(): number {
    return this.active;
  }

  push(origin: string, id: string): void {
    const list = this.waiting.get(origin);
    if (list) list.push(id);
    else this.waiting.set(origin, [id]);
    this.queued++;
    this.pump();
  }

  /** Forgets every waiting job (a job already running finishes on its own). */
  clear(): void {
    this.waiting.clear();
    this.queued = 0;
  }

  private pump(): void {
    while (this.active < this.maxInFlight && this.queued > 0) {
      let picked: string | undefined;
      for (const [origin, list] of this.waiting) {
        if ((this.activeByOrigin.get(origin) ?? 0) >= this.maxPerOrigin) continue;
        picked = origin;
        const id = list.shift()!;
        // Move this origin to the back of the line (round robin), or drop it when empty.
        this.waiting.delete(origin);
        if (list.length) this.waiting.set(origin, list);
        this.queued--;
        this.start(origin, id);
        break;
      }
      if (picked === undefined) return; // every origin with work is at its limit
    }
  }

  private start(origin: string, id: string): void {
    this.active++;
    this.activeByOrigin.set(origin, (this.activeByOrigin.get(origin) ?? 0) + 1);
    void this.run(id)
      .catch(this.onError)
      .finally(() => {
        this.active--;
        const n = (this.activeByOrigin.get(origin) ?? 1) - 1;
        if (n > 0) this.activeByOrigin.set(origin, n);
        else this.activeByOrigin.delete(origin);
        this.pump();
        this.onSettled();
      });
  }
}
