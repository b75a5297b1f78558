// What a batch row's ledger lines say it is (foldRow, core/batch-book.ts) and what a run does
// with it next (planRow, core/batch-rows.ts), pure: lines as two runs would write them, clocks
// given as numbers. An accepted row is final whatever another run met later; an unknown outcome
// is never forgotten by a later refusal; a try whose outcome is unknown is sent again under its
// key only while the service surely remembers it (by every clock); a refusal moves to the next
// key only when the service keeps it under the old one.
import { describe, expect, it } from 'vitest';
import { foldRow } from '../../src/core/batch-book.js';
import { idempotencyKeyOf, type KeyScope } from '../../src/core/batch-identity.js';
import { planRow } from '../../src/core/batch-rows.js';
import type { RowLine } from '../../src/core/ledger/lines.js';
import { SERVICE_KEY_MEMORY_MS } from '../../src/domain/idempotency.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-03-01T09:00:00Z');
/** The service's clock runs 10 minutes ahead of this machine's. */
const SKEW = 10 * 60_000;

const SCOPE: KeyScope = { accountId: 'acct_rows', batch: 'payouts.csv', instance: '' };
const ROW = 'ref-0123456789abcdef0123456789abcdef';
const keyOf = (gen: number) => idempotencyKeyOf(SCOPE, ROW, gen);
const iso = (ms: number) => new Date(ms).toISOString();

/** A line of run `attempt` about the row's key of generation `gen`, written at T0 + `after` ms (both clocks). */
function line(attempt: string, gen: number, after: number, status: RowLine['status'], extra: Partial<RowLine> = {}): RowLine {
  return { op: 'row', batch: SCOPE.batch, row: ROW, line: 2, gen, key: keyOf(gen), attempt, status, at: iso(T0 + after), svc_at: iso(T0 + SKEW + after), ...extra };
}

/** Now, `after` ms past T0 on this machine's clock and on the service's. */
const now = (after: number, serviceAfter = after) => ({ machine: T0 + after, service: T0 + SKEW + serviceAfter });

const accepted = (attempt: string, gen: number, after: number) => line(attempt, gen, after, 'accepted', { transfer_id: `tr_${attempt}` });
const refused = (attempt: string, gen: number, after: number, remembered: boolean) =>
  line(attempt, gen, after, 'refused', remembered ? { error_code: 'recipient_not_found', remembered: true } : { error_code: 'rate_limited' });

describe('foldRow: what the lines of two runs say the row is', () => {
  // Run A was accepted under generation 0; run B met a refusal the service keeps (under the same
  // key, or having moved to the next), its lines written before A's answer or after.
  const a = [line('A', 0, 0, 'tried'), accepted('A', 0, 1_000)];
  const cases: Array<[string, RowLine[]]> = [
    ['B under the same key, after A', [...a, line('B', 0, 2_000, 'tried'), refused('B', 0, 3_000, true)]],
    ['B under the same key, between A\'s try and its answer', [a[0]!, line('B', 0, 500, 'tried'), refused('B', 0, 600, true), a[1]!]],
    ['B under the next key (-r1), after A', [...a, line('B', 1, 2_000, 'tried'), refused('B', 1, 3_000, true)]],
    ['B under the next key (-r1), before A\'s answer', [a[0]!, line('B', 1, 500, 'tried'), refused('B', 1, 600, true), a[1]!]],
  ];
  for (const [name, lines] of cases) {
    it(`accepted under generation 0 by one run and a remembered refusal by another (${name}): accepted, A's transfer`, () => {
      const r = foldRow(lines)!;
      expect(r.status).toBe('accepted');
      expect(r.line).toMatchObject({ gen: 0, key: keyOf(0), transfer_id: 'tr_A' });
      expect(r.line.error_code).toBeUndefined();
    });
  }

  it('an unknown outcome and a later refusal (another run, the same key or the next): unknown, dated from the first try', () => {
    const lost = [line('A', 0, 0, 'tried'), line('A', 0, 1_000, 'unknown', { error_code: 'network_error' })];
    for (const later of [
      [line('B', 0, HOUR, 'tried'), refused('B', 0, HOUR + 1_000, false)],
      [line('B', 0, HOUR, 'tried'), refused('B', 0, HOUR + 1_000, true)],
      [line('B', 1, HOUR, 'tried'), refused('B', 1, HOUR + 1_000, true)],
    ]) {
      const r = foldRow([...lost, ...later])!;
      expect(r.status).toBe('unknown');
      expect(r.line).toMatchObject({ gen: 0, key: keyOf(0) });
      expect(r.firstTry).toEqual({ at: iso(T0), svc_at: iso(T0 + SKEW) });
    }
  });

  it('a run killed mid-request (its `tried` has nothing after it) and a later refusal: unknown', () => {
    const r = foldRow([line('A', 0, 0, 'tried'), line('B', 0, HOUR, 'tried'), refused('B', 0, HOUR + 1_000, false)])!;
    expect(r.status).toBe('unknown');
    expect(r.firstTry?.at).toBe(iso(T0));
  });

  it('refusals only: the latest generation leads', () => {
    const r = foldRow([line('A', 0, 0, 'tried'), refused('A', 0, 1_000, true), line('B', 1, HOUR, 'tried'), refused('B', 1, HOUR + 1_000, false)])!;
    expect(r.status).toBe('refused');
    expect(r.line).toMatchObject({ gen: 1, error_code: 'rate_limited' });
    expect(r.line.remembered).toBeUndefined();
  });
});

describe('planRow: what a run does with a row no accepted row answers for', () => {
  it('no record: the first key', () => {
    expect(planRow(undefined, SCOPE, ROW, now(0))).toEqual({ kind: 'send', gen: 0, key: keyOf(0), reachedBefore: false });
  });

  it('unknown, within the service\'s memory on every clock: sent again under the same key, as a request that may have reached it', () => {
    const r = foldRow([line('A', 0, 0, 'tried'), line('A', 0, 1_000, 'unknown')]);
    for (const at of [now(HOUR), now(SERVICE_KEY_MEMORY_MS - 60_000)]) {
      expect(planRow(r, SCOPE, ROW, at)).toEqual({ kind: 'send', gen: 0, key: keyOf(0), reachedBefore: true });
    }
    // A run killed mid-request whose try is dated on this machine's clock only (no answer had told
    // it the service's), the service's time not known now either.
    const { svc_at: _, ...machineOnly } = line('A', 0, 0, 'tried');
    expect(planRow(foldRow([machineOnly]), SCOPE, ROW, { machine: T0 + HOUR })).toEqual({ kind: 'send', gen: 0, key: keyOf(0), reachedBefore: true });
  });

  it('unknown, past the service\'s memory on any clock: not sent (unknown), dated from the first try', () => {
    const r = foldRow([line('A', 0, 0, 'tried'), line('A', 0, 1_000, 'unknown'), line('B', 0, HOUR, 'tried'), refused('B', 0, HOUR + 1_000, false)]);
    const since = { at: iso(T0), svc_at: iso(T0 + SKEW) };
    for (const at of [
      now(SERVICE_KEY_MEMORY_MS), // both clocks
      now(HOUR, 25 * HOUR), // the service's: this machine's clock was set back
      now(25 * HOUR, HOUR), // this machine's
      { machine: T0 + 25 * HOUR }, // this machine's, the service's time not known
    ]) {
      expect(planRow(r, SCOPE, ROW, at)).toEqual({ kind: 'unknown', key: keyOf(0), since, future: false });
    }
  });

  it('unknown, its first try later than now by a clock: not sent (unknown, in the future)', () => {
    const r = foldRow([line('A', 0, 0, 'tried'), line('A', 0, 1_000, 'unknown')]);
    for (const at of [now(-HOUR, HOUR), now(HOUR, -HOUR), { machine: T0 - 48 * HOUR }]) {
      expect(planRow(r, SCOPE, ROW, at)).toMatchObject({ kind: 'unknown', key: keyOf(0), future: true });
    }
  });

  it('refused, a refusal the service keeps under the key: the next generation\'s key (-r1, then -r2)', () => {
    const once = foldRow([line('A', 0, 0, 'tried'), refused('A', 0, 1_000, true)]);
    expect(planRow(once, SCOPE, ROW, now(HOUR))).toEqual({ kind: 'send', gen: 1, key: keyOf(1), reachedBefore: false });
    expect(keyOf(1)).toBe(`${keyOf(0)}-r1`);
    const twice = foldRow([line('A', 0, 0, 'tried'), refused('A', 0, 1_000, true), line('B', 1, HOUR, 'tried'), refused('B', 1, HOUR + 1_000, true)]);
    expect(planRow(twice, SCOPE, ROW, now(2 * HOUR))).toEqual({ kind: 'send', gen: 2, key: `${keyOf(0)}-r2`, reachedBefore: false });
  });

  it('refused, a refusal the service does not keep (429): the same key', () => {
    const r = foldRow([line('A', 0, 0, 'tried'), refused('A', 0, 1_000, false)]);
    expect(planRow(r, SCOPE, ROW, now(HOUR))).toEqual({ kind: 'send', gen: 0, key: keyOf(0), reachedBefore: false });
    // Days later too: a refused request made nothing, so no window applies.
    expect(planRow(r, SCOPE, ROW, now(72 * HOUR))).toEqual({ kind: 'send', gen: 0, key: keyOf(0), reachedBefore: false });
  });

  it('never sent (not_sent): the same key', () => {
    const r = foldRow([line('A', 0, 0, 'not_sent')]);
    expect(planRow(r, SCOPE, ROW, now(HOUR))).toEqual({ kind: 'send', gen: 0, key: keyOf(0), reachedBefore: false });
  });
});
