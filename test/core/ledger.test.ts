// The ledger's rules on their own (src/core/ledger/): the merge rule over lines written by runs
// that interleave, the windows measured on both clocks, and what a payment's record means for a
// run about to send (payment-prior.ts). No network, no files: lines are made up.
import { describe, expect, it } from 'vitest';
import { foldKey } from '../../src/core/ledger/fold.js';
import type { SendLine, Status } from '../../src/core/ledger/lines.js';
import { parseLine } from '../../src/core/ledger/lines.js';
import { ageOf, pastKeeping, stillRemembered } from '../../src/core/ledger/memory.js';
import { judge, recordOf } from '../../src/core/payment-prior.js';

const T = Date.parse('2031-05-01T12:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

let seq = 0;
function line(attempt: string, status: Status, extra: Partial<SendLine> = {}): SendLine {
  seq += 1;
  return { op: 'send', key: 'k', attempt, status, at: iso(T + seq * 1000), request: 'fp', ...extra };
}

describe('the merge rule (foldKey)', () => {
  it('an attempt ends as its last line says; a `tried` with nothing after it is unknown', () => {
    expect(foldKey([line('a', 'tried')])?.status).toBe('unknown');
    expect(foldKey([line('a', 'tried'), line('a', 'not_sent')])?.status).toBe('not_sent');
    expect(foldKey([line('a', 'tried'), line('a', 'refused')])?.status).toBe('refused');
  });

  it('accepted is final for its key: a refusal another run meets after it never replaces it, in any order', () => {
    const a1 = line('A', 'tried');
    const b1 = line('B', 'tried');
    const b2 = line('B', 'accepted', { transfer_id: 'tr_1' });
    const a2 = line('A', 'refused', { error_code: 'unauthorized' });
    for (const order of [[a1, b1, b2, a2], [a1, b1, a2, b2], [b1, b2, a1, a2]]) {
      const r = foldKey(order)!;
      expect(r.status).toBe('accepted');
      expect(r.line.transfer_id).toBe('tr_1');
    }
  });

  it('an unknown outcome is never forgotten by a later refusal (of another run, or the same key again)', () => {
    expect(foldKey([line('A', 'tried'), line('A', 'unknown'), line('B', 'tried'), line('B', 'refused')])?.status).toBe('unknown');
    // Another run in flight (its `tried` alone) counts as unknown too.
    expect(foldKey([line('A', 'tried'), line('B', 'tried'), line('B', 'refused')])?.status).toBe('unknown');
  });

  it('the first try that may have reached the service is the earliest of every attempt but those that never left', () => {
    const lines = [line('A', 'tried'), line('A', 'not_sent'), line('B', 'tried', { svc_at: iso(T + 100_000) }), line('B', 'unknown'), line('C', 'tried'), line('C', 'refused')];
    const r = foldKey(lines)!;
    expect(r.firstTry).toEqual({ at: lines[2]!.at, svc_at: iso(T + 100_000) });
  });

  it("an attempt whose first line did not know the service's time takes it from its last, less how long it took", () => {
    const first = line('A', 'tried');
    const last = { ...line('A', 'unknown'), at: iso(Date.parse(first.at) + 30_000), svc_at: iso(T + DAY) };
    expect(foldKey([first, last])!.firstTry).toEqual({ at: first.at, svc_at: iso(T + DAY - 30_000) });
  });

  it('what a held transaction became only moves forward: a late `pending_approval` never undoes `approved`', () => {
    const held = line('A', 'accepted', { transaction_id: 'txn_1', held: 'pending_approval' });
    const approved = line('B', 'accepted', { transaction_id: 'txn_1', held: 'approved', transfer_id: 'tr_9' });
    const stale = line('C', 'accepted', { transaction_id: 'txn_1', held: 'pending_approval' });
    const r = foldKey([held, approved, stale])!;
    expect(r.line).toMatchObject({ held: 'approved', transfer_id: 'tr_9' });
  });
});

describe("windows on every clock that can be read (memory.ts)", () => {
  const at = { at: iso(T), svc_at: iso(T) };
  it('elapsed is the longest any pair of clocks says', () => {
    expect(ageOf(at, { machine: T + HOUR, service: T + 30 * HOUR })).toEqual({ kind: 'elapsed', ms: 30 * HOUR });
    expect(ageOf(at, { machine: T + 30 * HOUR, service: T + HOUR })).toEqual({ kind: 'elapsed', ms: 30 * HOUR });
  });

  it('a moment in the future on any clock is unknown (a clock set back since)', () => {
    expect(ageOf(at, { machine: T - 48 * HOUR })).toEqual({ kind: 'future' });
    expect(ageOf(at, { machine: T + HOUR, service: T - HOUR })).toEqual({ kind: 'future' });
    expect(stillRemembered(at, { machine: T - 48 * HOUR }, 23 * HOUR)).toBe(false);
  });

  it("the Date header's grain (a second) is not the future; two readings a second apart are the same moment", () => {
    expect(ageOf(at, { machine: T + 10, service: T - 1_500 }).kind).toBe('elapsed');
  });

  it("a moment known on this machine's clock only is compared with the service's now as well", () => {
    const machineOnly = { at: iso(T) };
    // This machine set back 10 hours after a try 30 hours ago: the service's clock still says 30.
    expect(stillRemembered(machineOnly, { machine: T + 20 * HOUR, service: T + 30 * HOUR }, 23 * HOUR)).toBe(false);
    expect(stillRemembered(machineOnly, { machine: T + 20 * HOUR }, 23 * HOUR)).toBe(true); // the service could not be asked
  });

  it('pastKeeping needs both clocks: the service unknown, or one clock short of it, drops nothing', () => {
    const keep = 90 * DAY;
    expect(pastKeeping(at, { machine: T + 91 * DAY }, keep)).toBe(false);
    expect(pastKeeping(at, { machine: T + 91 * DAY, service: T + DAY }, keep)).toBe(false);
    expect(pastKeeping(at, { machine: T + DAY, service: T + 91 * DAY }, keep)).toBe(false);
    expect(pastKeeping(at, { machine: T + 91 * DAY, service: T + 91 * DAY }, keep)).toBe(true);
  });
});

describe('what a payment record means for the next run (payment-prior.ts)', () => {
  const now = (ms: number) => ({ machine: T + ms, service: T + ms });
  it('nothing made: send; made: show it; another request under the key: refused, exit 5', () => {
    expect(judge(undefined, 'k', 'fp', now(0))).toEqual({ kind: 'send' });
    expect(judge(recordOf([line('A', 'tried'), line('A', 'refused')]), 'k', 'fp', now(0))).toEqual({ kind: 'send' });
    const made = recordOf([line('A', 'tried'), line('A', 'accepted', { transfer_id: 'tr_1' })]);
    expect(judge(made, 'k', 'fp', now(100 * DAY))).toMatchObject({ kind: 'earlier', earlier: { transferId: 'tr_1', sentKey: 'k' } });
    expect(() => judge(made, 'k', 'another', now(0))).toThrow(expect.objectContaining({ code: 'idempotency_key_reused', exitCode: 5 }));
  });

  it('unknown: sent again under the same key within 23 hours by every clock; refused past it or in the future', () => {
    const lost = recordOf([{ ...line('A', 'tried'), at: iso(T), svc_at: iso(T) }]);
    expect(judge(lost, 'k', 'fp', now(HOUR))).toMatchObject({ kind: 'again', sentKey: 'k' });
    expect(() => judge(lost, 'k', 'fp', now(23 * HOUR))).toThrow(expect.objectContaining({ code: 'idempotency_outcome_unknown', exitCode: 5 }));
    expect(() => judge(lost, 'k', 'fp', { machine: T - 48 * HOUR, service: T + HOUR })).toThrow(expect.objectContaining({ code: 'idempotency_outcome_unknown' }));
  });

  it('a command key whose standard transfer (sent under a key of its own after a 422) was accepted: the earlier one', () => {
    const lines = [line('A', 'tried'), line('A', 'refused', { error_code: 'recipient_not_confidential_ready' }), line('A', 'tried', { sent_key: 'k/standard' }), line('A', 'accepted', { sent_key: 'k/standard', transfer_id: 'tr_std' })];
    expect(judge(recordOf(lines), 'k', 'fp', now(0))).toMatchObject({ kind: 'earlier', earlier: { sentKey: 'k/standard', transferId: 'tr_std' } });
  });
});

describe('reading lines back (lines.ts)', () => {
  it('skips what is not a ledger line: torn, foreign, a bad status, an accepted line naming nothing', () => {
    expect(parseLine({ ...line('A', 'tried') })).toBeDefined();
    expect(parseLine({ op: 'send', key: 'k', attempt: 'a', status: 'sent', at: iso(T), request: 'fp' })).toBeUndefined();
    expect(parseLine({ op: 'send', key: 'k', attempt: 'a', status: 'accepted', at: iso(T), request: 'fp' })).toBeUndefined();
    expect(parseLine({ op: 'send', key: 'k', attempt: 'a', status: 'tried', at: 'yesterday', request: 'fp' })).toBeUndefined();
    expect(parseLine({ op: 'nope' })).toBeUndefined();
    expect(parseLine(null)).toBeUndefined();
  });
});
