// Tasks due at an instant of the sandbox clock. They run when real time reaches them (one
// setTimeout armed for the earliest) and when the clock is advanced: advance() runs every task
// that became due, in due order (ties in scheduling order), before it resolves.
import type { SandboxClock } from './clock.js';

export type TaskFn = (dueAt: number) => void | Promise<void>;

interface Task {
  dueAt: number;
  seq: number;
  fn: TaskFn;
  cancelled: boolean;
}

export interface TaskHandle {
  readonly dueAt: number;
  cancel(): void;
}

/** setTimeout cannot wait longer than 2^31-1 ms; longer waits re-arm. */
const MAX_TIMER_MS = 2_147_483_647;

export class Scheduler {
  private readonly heap: Task[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private draining: Promise<void> = Promise.resolve();
  private stopped = false;
  private inDrain = false;

  constructor(
    private readonly clock: SandboxClock,
    /** A task that throws is reported here (and the others still run). */
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Number of tasks waiting (cancelled ones excluded). */
  get size(): number {
    let n = 0;
    for (const t of this.heap) if (!t.cancelled) n++;
    return n;
  }

  at(dueAt: number, fn: TaskFn): TaskHandle {
    const task: Task = { dueAt, seq: this.seq++, fn, cancelled: false };
    this.push(task);
    if (!this.inDrain) this.arm(); // a drain re-arms when it finishes
    return { dueAt, cancel: () => void (task.cancelled = true) };
  }

  /** Advances the clock and runs every task that became due, in order. */
  async advance(ms: number): Promise<void> {
    this.clock.advance(ms);
    this.disarm(); // the armed timer was computed for the old offset
    await this.runDue();
  }

  /** Runs every task due now. Calls are serialized: concurrent callers wait for one drain. */
  runDue(): Promise<void> {
    const next = this.draining.then(() => this.drain());
    this.draining = next.catch(() => {});
    return next;
  }

  /** Drops every waiting task (sandbox reset). */
  clear(): void {
    for (const t of this.heap) t.cancelled = true;
    this.heap.length = 0;
    this.disarm();
  }

  /** Stops the timer for good; tasks stay queued but never run. */
  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  private async drain(): Promise<void> {
    this.inDrain = true;
    this.disarm();
    try {
      for (;;) {
        if (this.stopped) return;
        const head = this.heap[0];
        if (!head || head.dueAt > this.clock.now()) break;
        this.pop();
        if (head.cancelled) continue;
        try {
          await head.fn(head.dueAt);
        } catch (err) {
          this.onError(err);
        }
      }
    } finally {
      this.inDrain = false;
    }
    this.arm();
  }

  private arm(): void {
    if (this.stopped) return;
    while (this.heap.length && this.heap[0]!.cancelled) this.pop();
    const head = this.heap[0];
    if (!head) return this.disarm();
    if (this.timer && this.timerAt <= head.dueAt) return;
    this.disarm();
    const delay = Math.min(Math.max(0, head.dueAt - this.clock.now()), MAX_TIMER_MS);
    this.timerAt = head.dueAt;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      void this.runDue();
    }, delay);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  // A binary min-heap ordered by (dueAt, seq).
  private less(a: Task, b: Task): boolean {
    return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq);
  }

  private push(task: Task): void {
    const h = this.heap;
    h.push(task);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private pop(): Task | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
