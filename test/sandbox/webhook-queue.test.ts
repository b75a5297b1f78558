// The delivery queue's slot sharing (src/sandbox/webhooks/queue.ts), on its own: jobs are
// promises the test settles, so which job starts when is exact, with no HTTP and no time.
import { describe, expect, it } from 'vitest';
import { AttemptQueue, type QueueLimits } from '../../src/sandbox/webhooks/queue.js';

/** A queue whose jobs run until the test ends them; `started` lists job ids in start order. */
function queue(limits: QueueLimits) {
  const started: string[] = [];
  const running = new Map<string, () => void>();
  const q = new AttemptQueue(
    limits,
    (id) => {
      started.push(id);
      return new Promise<void>((resolve) => running.set(id, resolve));
    },
    () => {},
    (err) => {
      throw err;
    },
  );
  /** Ends a running job and lets the queue hand its slot on (its `finally` runs in a microtask). */
  const finish = async (id: string) => {
    running.get(id)!();
    running.delete(id);
    await new Promise((r) => setImmediate(r));
  };
  return { q, started, finish };
}

describe('delivery slots shared between accounts', () => {
  it("an account's attempt starts at once while another's hanging attempts hold every shared slot", () => {
    const { q, started } = queue({ maxInFlight: 16, maxPerOrigin: 4, reservedPerAccount: 2 });
    // @bob: 20 receivers, 4 attempts each, none of which ever ends.
    for (let i = 0; i < 80; i++) q.push('bob', `http://127.0.0.1:${10_000 + (i % 20)}`, `bob-${i}`);
    expect(q.inFlightOf('bob')).toBe(18); // the 16 shared slots and his own 2
    expect(q.waitingOf('bob')).toBe(62);
    q.push('acme', 'http://127.0.0.1:9999', 'acme-1');
    expect(started.at(-1)).toBe('acme-1'); // started in push(), before any of @bob's ended
    expect(q.inFlightOf('acme')).toBe(1);
    expect(q.inFlight).toBe(19);
  });

  it('free shared slots go to the waiting accounts in turn, not to the one with the longest backlog', async () => {
    const { q, started, finish } = queue({ maxInFlight: 2, maxPerOrigin: 4, reservedPerAccount: 0 });
    for (let i = 1; i <= 6; i++) q.push('bob', `http://b${i}.test`, `b${i}`);
    for (let i = 1; i <= 3; i++) q.push('acme', 'http://a.test', `a${i}`);
    expect(started).toEqual(['b1', 'b2']);
    for (const id of ['b1', 'b2', 'a1', 'b3', 'a2', 'b4', 'a3']) await finish(id);
    expect(started).toEqual(['b1', 'b2', 'a1', 'b3', 'a2', 'b4', 'a3', 'b5', 'b6']);
  });

  it('one receiver never holds more than its limit; the others use the free slots meanwhile', async () => {
    const { q, started, finish } = queue({ maxInFlight: 3, maxPerOrigin: 2, reservedPerAccount: 0 });
    for (let i = 1; i <= 4; i++) q.push('bob', 'http://slow.test', `s${i}`);
    expect(started).toEqual(['s1', 's2']); // a third slot is free, but slow.test is at its 2
    q.push('bob', 'http://fast.test', 'f1');
    q.push('bob', 'http://fast.test', 'f2');
    expect(started).toEqual(['s1', 's2', 'f1']);
    await finish('f1');
    expect(started.at(-1)).toBe('f2'); // slow.test is still at its limit: fast.test takes the slot
    await finish('s1');
    expect(started.at(-1)).toBe('s3');
  });
});
