// The merge rule: what the lines of one key (or one batch row) say it is, however many runs wrote
// them and in whatever order they interleave. Each run's attempt ends as its last line says (a
// `tried` with nothing after it: unknown, since its answer was lost, the process was killed, or
// it is in flight in another run). Over the attempts, the most that may have happened wins:
// accepted > unknown > refused > not_sent. So an accepted (or held) record is final for its key:
// a refusal another run meets later never replaces it, and an unknown outcome is never
// forgotten by a refusal that came after it. docs/idempotency.md, "The ledger".
import type { HeldState, RequestLine, Status } from './lines.js';

export type KeyStatus = Exclude<Status, 'tried'>;

/** How far along a status is: the merge rule keeps the furthest (every fold of the ledger orders by it). */
export const STATUS_RANK: Readonly<Record<KeyStatus, number>> = { not_sent: 0, refused: 1, unknown: 2, accepted: 3 };

/** A moment on both clocks, as far as they were known. */
export interface Moment {
  at: string;
  svc_at?: string;
}

export interface KeyRecord<L extends RequestLine> {
  status: KeyStatus;
  /**
   * The deciding attempt's lines merged (its request, then how it ended); for `accepted`, the
   * fields of every accepted line merged in order (what a held transaction became, learnt later).
   */
  line: L;
  /** The first try that may have reached the service (attempts that stayed on this machine aside). */
  firstTry?: Moment;
  /** When the record was settled: the deciding attempt's last line. */
  settled: Moment;
}

/** A held state never goes back to pending once decided. */
function laterHeld(a: HeldState | undefined, b: HeldState | undefined): HeldState | undefined {
  if (b === undefined) return a;
  return a !== undefined && a !== 'pending_approval' && b === 'pending_approval' ? a : b;
}

/** Folds the lines of one key, in file order; undefined when there are none. */
export function foldKey<L extends RequestLine>(lines: readonly L[]): KeyRecord<L> | undefined {
  const attempts = new Map<string, { first: L; last: L }>();
  for (const l of lines) {
    const a = attempts.get(l.attempt);
    if (a) a.last = l;
    else attempts.set(l.attempt, { first: l, last: l });
  }
  let best: { status: KeyStatus; first: L; last: L } | undefined;
  let firstTry: Moment | undefined;
  for (const { first, last } of attempts.values()) {
    const status: KeyStatus = last.status === 'tried' ? 'unknown' : last.status;
    if (status !== 'not_sent') firstTry = earliest(firstTry, startOf(first, last));
    if (!best || STATUS_RANK[status] > STATUS_RANK[best.status]) best = { status, first, last };
  }
  if (!best) return undefined;
  let line: L = { ...best.first, ...best.last };
  if (best.status === 'accepted') {
    line = best.first;
    let held: HeldState | undefined;
    for (const l of lines) {
      if (l.status !== 'accepted') continue;
      held = laterHeld(held, l.held);
      line = { ...line, ...l };
    }
    if (held !== undefined) line = { ...line, held };
  }
  const settled = { at: best.last.at, ...(best.last.svc_at ? { svc_at: best.last.svc_at } : {}) };
  return { status: best.status, line, ...(firstTry ? { firstTry } : {}), settled };
}

/**
 * When an attempt began, on both clocks. Its first line may not know the service's time (the
 * run had no answer yet) while its last does (a refusal's Date): the service's time at the start
 * is then that, less how long the attempt took by this machine's clock.
 */
function startOf(first: RequestLine, last: RequestLine): Moment {
  const at = first.first_at ?? first.at;
  if (first.svc_at !== undefined) return { at, svc_at: first.svc_at };
  if (last.svc_at === undefined) return { at };
  const took = Date.parse(last.at) - Date.parse(at);
  return took >= 0 ? { at, svc_at: new Date(Date.parse(last.svc_at) - took).toISOString() } : { at };
}

/** The earlier of two moments, on each clock apart (a clock that jumped cannot make a try look later). */
function earliest(a: Moment | undefined, b: Moment): Moment {
  if (!a) return b;
  const at = Date.parse(b.at) < Date.parse(a.at) ? b.at : a.at;
  const svc = [a.svc_at, b.svc_at].filter((t): t is string => t !== undefined).sort((x, y) => Date.parse(x) - Date.parse(y))[0];
  return { at, ...(svc ? { svc_at: svc } : {}) };
}
