// `--timeout` is the most time a command spends on the network, every request, retry and pause
// between retries included (like curl's --max-time), so a cron job can rely on it. The waiting
// that --wait or --watch asks for is not network work: it has its own limit.
import { monotonicMs } from '../clock.js';

export class NetworkBudget {
  private spent = 0;

  constructor(readonly totalMs: number) {}

  get remainingMs(): number {
    return Math.max(0, this.totalMs - this.spent);
  }

  spend(ms: number): void {
    this.spent += ms;
  }

  /** Runs `fn` and counts the real time it took against the budget. */
  async measure<T>(fn: () => Promise<T>): Promise<T> {
    const started = monotonicMs();
    try {
      return await fn();
    } finally {
      this.spend(monotonicMs() - started);
    }
  }
}
