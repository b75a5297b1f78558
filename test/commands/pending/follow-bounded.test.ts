// waitForDecision's `boundReads` (svc mcp's waits): each read's network time is at most what is
// left of the wait (and never less than READ_FLOOR_MS), so a read started near the end cannot
// carry the call past its limit by a whole --timeout; without it each read has the whole
// --timeout, as `pending wait` always did. A stub client answers "pending" at once; the network
// time (the real one) is recorded at each renewal; the clock is virtual.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/client.js';
import { ServiceClock } from '../../../src/api/service-clock.js';
import { READ_FLOOR_MS, waitForDecision } from '../../../src/commands/pending/follow.js';
import { createStreams } from '../../../src/io/streams.js';
import { networkTime, type NetworkTime } from '../../../src/runtime/network-time.js';
import { virtualClock } from '../../helpers/cli.js';

const TIMEOUT_MS = 30_000; // --timeout's default

/** The real --timeout (its default), recording the network time each renewal gives a read. */
function recorded(caps: number[]): NetworkTime {
  const real = networkTime(undefined);
  return { ...real, renew: (cap) => {
    real.renew(cap);
    caps.push(real.budget().totalMs);
  } };
}

function setup() {
  const clock = virtualClock(Date.parse('2026-01-01T00:00:00Z'));
  const caps: number[] = [];
  const stopped = new AbortController();
  const ctx = {
    clock,
    env: {},
    json: true,
    io: createStreams({ stdout: new PassThrough(), stderr: new PassThrough(), env: {}, tty: { stdin: false, stdout: false, stderr: false } }),
    interrupt: { wait: () => new Promise<string>(() => {}), signal: () => stopped.signal },
    network: recorded(caps),
    serviceClock: new ServiceClock(clock),
  };
  const pending = { transaction_id: 'txn_a', status: 'pending_approval', expires_at: '2026-01-01T00:15:00Z' };
  const client = { get: async () => ({ data: pending }) } as unknown as ApiClient;
  return { ctx, client, caps, clock };
}

describe('waitForDecision: reads bounded by the time left', () => {
  it('with boundReads, no read may take longer than what is left of a 45 s wait (at least the floor); without, the whole --timeout', async () => {
    const { ctx, client, caps, clock } = setup();
    const lefts: number[] = [];
    const started = clock.now();
    const renew = ctx.network.renew;
    ctx.network.renew = (cap?: number) => {
      lefts.push(45_000 - (clock.now() - started));
      renew(cap);
    };
    await expect(waitForDecision(ctx, client, 'txn_a', { timeoutMs: 45_000, boundReads: true })).rejects.toMatchObject({ code: 'wait_timeout' });
    expect(caps.length).toBeGreaterThan(3);
    caps.forEach((cap, i) => expect(cap).toBe(Math.min(TIMEOUT_MS, Math.max(READ_FLOOR_MS, lefts[i]!))));
    // The last read, at the end of the wait, gets the floor and no more: 45 s + 2 s < the host's 60 s.
    expect(caps.at(-1)).toBe(READ_FLOOR_MS);
    // Without it (pending wait), each read has the whole --timeout, as before.
    const plain = setup();
    await expect(waitForDecision(plain.ctx, plain.client, 'txn_a', { timeoutMs: 45_000 })).rejects.toMatchObject({ code: 'wait_timeout' });
    expect(new Set(plain.caps)).toEqual(new Set([TIMEOUT_MS]));
  });
});
