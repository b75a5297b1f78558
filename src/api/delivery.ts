// What a request did at the service, worked out once, where its tries are made, over all of them
// (and over an earlier run's, when the caller says one may have reached the service). Four
// outcomes: `not_sent` (no try left this machine), `refused` (the service answered a refusal and
// nothing before may have made anything), `unknown` (a try may have reached the service and no
// answer says what it made), `accepted` (a 2xx that could be read). The rule that matters: once
// any try may have reached the service, a later refusal (4xx, 408, 409, 429) does not make it
// "nothing was made": the lost answer may have been a transfer. docs/idempotency.md.
import type { Undelivered } from '../errors.js';
import type { Outcome } from './attempt.js';

/** What a request did: how a failed one ended (errors.ts, the type its errors carry), or accepted. */
export type Delivery = Undelivered | 'accepted';

export class DeliveryTracker {
  /** Whether a try (this run's or, per the caller, an earlier one) may have reached the service. */
  private reached: boolean;
  /** Whether the service has answered a try (a refusal, since the request goes on). */
  private answered = false;

  constructor(reachedBefore = false) {
    this.reached = reachedBefore;
  }

  /** Told each try's outcome as it ends; returns what the request did if it stops here. */
  after(outcome: Outcome): Delivery {
    const state = this.stateAfter(outcome);
    if (state === 'unknown') this.reached = true;
    if (state === 'refused') this.answered = true;
    return state;
  }

  /** What the request did when it stops between tries (Ctrl-C during a pause, the budget spent). */
  stopped(): Undelivered {
    return this.reached ? 'unknown' : this.answered ? 'refused' : 'not_sent';
  }

  /** A 2xx whose body could not be read: the service did something, and what is not known. */
  unreadable(): Undelivered {
    this.reached = true;
    return 'unknown';
  }

  private stateAfter(outcome: Outcome): Delivery {
    switch (outcome.kind) {
      case 'answer':
        if (outcome.status >= 200 && outcome.status < 300) return 'accepted';
        // A 5xx may come after the work was done (a commit, then a crash): not a refusal.
        if (outcome.status >= 500) return 'unknown';
        return this.reached ? 'unknown' : 'refused';
      case 'failed':
        // Refused at connect: this try never left the machine (an earlier one may have).
        if (outcome.failure.refused) return this.reached ? 'unknown' : 'not_sent';
        return 'unknown';
      // No answer in time, Ctrl-C mid-request, or an answer too large to read: it may have arrived.
      case 'timeout':
      case 'interrupted':
      case 'too_large':
        return 'unknown';
    }
  }
}
