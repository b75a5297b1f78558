// The sandbox clock: real time plus an offset that only grows. It never goes backwards, even
// if the machine's clock does, so creation order and created_at order always agree.

export class SandboxClock {
  private offset = 0;
  private last = 0;

  constructor(private readonly realNow: () => number = Date.now) {}

  /** Sandbox time in epoch milliseconds. */
  now(): number {
    const t = this.realNow() + this.offset;
    if (t > this.last) this.last = t;
    return this.last;
  }

  date(): Date {
    return new Date(this.now());
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  get offsetMs(): number {
    return this.offset;
  }

  /** Moves sandbox time forward. Use Scheduler.advance() to also run what became due. */
  advance(ms: number): void {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError('clock can only move forward by a whole number of milliseconds');
    this.offset += ms;
  }

  /** Restores a saved clock: the offset, and a floor so time never runs backwards across restarts. */
  restore(offsetMs: number, lastNowMs: number): void {
    this.offset = Number.isSafeInteger(offsetMs) && offsetMs >= 0 ? offsetMs : 0;
    if (Number.isSafeInteger(lastNowMs) && lastNowMs > this.last) this.last = lastNowMs;
  }

  /** The highest instant handed out so far (saved with the state). */
  get lastNowMs(): number {
    return this.last;
  }
}
