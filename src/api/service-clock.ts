// The service's clock, as the answers of this run tell it: the Date header of every answer
// (whole seconds) sets the offset from our own clock. Relative times ("2m ago", "14m left") are
// measured against it, because the service judges by it (the sandbox's can be moved forward).
// One per run, told by every client the run makes (API and sandbox control).
import type { Clock } from '../clock.js';

export class ServiceClock {
  private offsetMs = 0;
  private learnt = false;

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  /** Now on the service's clock; our own clock until an answer has told its time. */
  now(): number {
    return this.clock.now() + this.offsetMs;
  }

  /** Called with each answer's Date header. */
  learn(serverTime: Date): void {
    if (Number.isNaN(serverTime.getTime())) return;
    this.offsetMs = serverTime.getTime() - this.clock.now();
    this.learnt = true;
  }

  /** Whether an answer has told the service's time yet. */
  get known(): boolean {
    return this.learnt;
  }
}
