// How long ago something in the ledger happened, measured so that no clock that jumps can make it
// look recent. The service forgets an idempotency key after 24 hours: sending again under a key
// whose first try's outcome is unknown is safe only while the service surely remembers it. A
// line holds its moment on this machine's clock (`at`) and, when the run knew it, on the
// service's (`svc_at`, from the Date headers of its answers). Every elapsed time that can be
// measured is measured (machine to machine, and service to service, or the service's now against
// the machine's moment when only that is known), and the answer is the most cautious: any of them
// past the window, or any moment in the future, and the service may have forgotten.
// docs/idempotency.md.
import type { Moment } from './fold.js';

const HOUR_MS = 3_600_000;

/** Now on both clocks: the service's when an answer of this run told it. */
export interface Now {
  machine: number;
  service?: number;
}

/**
 * How far the service's clock and this machine's may disagree and still count as one moment,
 * when a moment on one is compared with now on the other: a time read on both sides of the
 * same minute is not "in the future".
 */
export const CROSS_CLOCK_SLACK_MS = HOUR_MS;

/**
 * The service's time is read from Date headers, to the second: two runs' readings of the same
 * instant may differ by that much (and a request's latency). Only a moment later than this on
 * the service's clock counts as in the future there.
 */
export const SERVICE_CLOCK_GRAIN_MS = 2_000;

export type Age = { kind: 'future' } | { kind: 'elapsed'; ms: number };

/** How long ago `m` was, the longest any pair of clocks says; `future` when one says it has not happened yet. */
export function ageOf(m: Moment, now: Now): Age {
  const at = Date.parse(m.at);
  const ages = [now.machine - at];
  if (ages[0]! < 0) return { kind: 'future' };
  if (now.service !== undefined && m.svc_at !== undefined) {
    const own = now.service - Date.parse(m.svc_at);
    if (own < -SERVICE_CLOCK_GRAIN_MS) return { kind: 'future' };
    ages.push(own);
  } else if (now.service !== undefined) {
    // The moment is on this machine's clock only: compared with the service's now, which a clock
    // set back here cannot move (the two clocks agreeing then to within the slack).
    const cross = now.service - at;
    if (cross < -CROSS_CLOCK_SLACK_MS) return { kind: 'future' };
    ages.push(cross);
  }
  return { kind: 'elapsed', ms: Math.max(...ages) };
}

/** Whether the service surely still remembers a key first tried at `m`: within `windowMs` by every clock. */
export function stillRemembered(m: Moment, now: Now, windowMs: number): boolean {
  const age = ageOf(m, now);
  return age.kind === 'elapsed' && age.ms < windowMs;
}

/**
 * Whether a line is old enough to drop: past `keepMs` on this machine's clock and on the
 * service's, both read now. A run that does not know the service's time drops nothing, so a
 * machine clock set far ahead alone never makes the ledger forget.
 */
export function pastKeeping(m: Moment, now: Now, keepMs: number): boolean {
  if (now.service === undefined) return false;
  const machine = now.machine - Date.parse(m.at);
  const service = now.service - Date.parse(m.svc_at ?? m.at);
  return machine >= keepMs && service >= keepMs;
}
