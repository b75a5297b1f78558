// waitForDecision's `boundReads` (svc mcp's waits): each read's network time is at most what is
// left of the wait (and never less than READ_FLOOR_MS), so a read started near the end cannot
// carry the call past its limit by a whole --timeout; without it each read has the whole
// --timeout, as `pending wait` always did. The bound is each read's own budget: the process's
// shared --timeout budget stays whole (a send beside the wait, over MCP, must not inherit a read's
// 2 s). A stub client answers "pending" at once and records the budget each read got; the clock
// is virtual.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { NetworkBudget } from '../../../src/api/budget.js';
import type { ApiClient } from '../../../src/api/client.js';
import { ServiceClock } from '../../../src/api/service-clock.js';
import { READ_FLOOR_MS, waitForDecision } from '../../../src/commands/pending/follow.js';
import { createStreams } from '../../../src/io/streams.js';
import { networkTime, type NetworkTime } from '../../../src/runtime/network-time.js';
import { virtualClock } from '../../helpers/cli.js';

const TIMEOUT_MS = 30_000; // --timeout's default

function setup() {
  const clock = virtualClock(Date.parse('2026-01-01T00:00:00Z'));
  /** Each read's own budget (undefined: the shared one), and the shared one's total at that read. */
  const reads: Array<{ own: number | undefined; shared: number }> = [];
  const stopped = new AbortController();
  const network: NetworkTime = networkTime(undefined);
  const ctx = {
    clock,
    env: {},
    json: true,
    io: createStreams({ stdout: new PassThrough(), stderr: new PassThrough(), env: {}, tty: { stdin: false, stdout: false, stderr: false } }),
    interrupt: { wait: () => new Promise<string>(() => {}), signal: () => stopped.signal },
    network,
    serviceClock: new ServiceClock(clock),
  };
  const pending = { transaction_id: 'txn_a', status: 'pending_approval', expires_at: '2026-01-01T00:15:00Z' };
  const client = {
    get: async (_path: string, opts: { budget?: NetworkBudget }) => {
      reads.push({ own: opts.budget?.totalMs, shared: network.budget().totalMs });
      return { data: pending };
    },
  } as unknown as ApiClient;
  return { ctx, client, reads, clock };
}

describe('waitForDecision: reads bounded by the time left', () => {
  it('with boundReads, no read may take longer than what is left of a 45 s wait (at least the floor), in its own budget; without, the whole --timeout', async () => {
    const { ctx, client, reads, clock } = setup();
    const lefts: number[] = [];
    const started = clock.now();
    const get = client.get.bind(client);
    client.get = ((path: string, opts: object) => {
      lefts.push(45_000 - (clock.now() - started));
      return get(path, opts);
    }) as ApiClient['get'];
    await expect(waitForDecision(ctx, client, 'txn_a', { timeoutMs: 45_000, boundReads: true })).rejects.toMatchObject({ code: 'wait_timeout' });
    expect(reads.length).toBeGreaterThan(3);
    reads.forEach((r, i) => expect(r.own).toBe(Math.min(TIMEOUT_MS, Math.max(READ_FLOOR_MS, lefts[i]!))));
    // The last read, at the end of the wait, gets the floor and no more: 45 s + 2 s < the host's 60 s.
    expect(reads.at(-1)!.own).toBe(READ_FLOOR_MS);
    // The process's shared budget is never cut to a read's bound: a send beside the wait keeps the whole --timeout.
    expect(new Set(reads.map((r) => r.shared))).toEqual(new Set([TIMEOUT_MS]));
    expect(ctx.network.budget().totalMs).toBe(TIMEOUT_MS);
    // Without it (pending wait), each read uses the shared budget, renewed whole each round, as before.
    const plain = setup();
    await expect(waitForDecision(plain.ctx, plain.client, 'txn_a', { timeoutMs: 45_000 })).rejects.toMatchObject({ code: 'wait_timeout' });
    expect(new Set(plain.reads.map((r) => r.own))).toEqual(new Set([undefined]));
    expect(new Set(plain.reads.map((r) => r.shared))).toEqual(new Set([TIMEOUT_MS]));
  });
});
