// The listener's rules without a terminal or a service: what makes it call out (re-learning the
// service clock), and how long it remembers a forwarded event.
import { createHmac } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, ForwardedEvents, type Received, type Refused } from '../../../src/commands/webhook/receiver.js';

const SECRET = 'whsec_receiverunittest0001';
const sign = (body: string) => createHmac('sha256', SECRET).update(body).digest('hex');
let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function receiver(now: () => number) {
  const reports: Array<Received | Refused> = [];
  let resyncs = 0;
  const handler = createReceiver({ secret: () => SECRET, toleranceMs: 300_000, now, resync: async () => void (resyncs += 1), forwardUnverified: false, report: (r) => reports.push(r), failed: (err) => {
    throw err;
  } });
  server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const post = (body: string, signature: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
  return { post, reports, resyncs: () => resyncs };
}

describe('createReceiver', () => {
  it('a forged stale delivery does not make the listener call out; a signed stale one re-learns the clock once', async () => {
    const r = await receiver(() => Date.parse('2026-11-23T12:00:00Z'));
    const stale = JSON.stringify({ event_id: 'evt_1', event: 'transfer.confirmed', timestamp: '2026-11-23T11:00:00Z' });
    expect(await r.post(stale, 'ab'.repeat(32))).toBe(401);
    expect(r.resyncs()).toBe(0);
    expect(await r.post(stale, sign(stale))).toBe(401);
    expect(r.resyncs()).toBe(1);
    expect(r.reports.map((x) => ('check' in x ? x.check.problem?.slice(0, 20) : x.refused))).toEqual(['signature does not m', 'timestamp 2026-11-23']);
  });
});

describe('ForwardedEvents', () => {
  it('remembers an event for the window, then forgets it', () => {
    const seen = new ForwardedEvents(1_000);
    seen.remember('evt_a', 0);
    expect(seen.has('evt_a', 1_000)).toBe(true);
    expect(seen.has('evt_b', 1_000)).toBe(false);
    expect(seen.has('evt_a', 1_001)).toBe(false);
  });

  it('keeps at most `max` events, dropping the oldest first', () => {
    const seen = new ForwardedEvents(60_000, 3);
    for (const [i, id] of ['a', 'b', 'c', 'd'].entries()) seen.remember(id, i);
    expect(seen.has('a', 10)).toBe(false);
    expect(['b', 'c', 'd'].map((id) => seen.has(id, 10))).toEqual([true, true, true]);
  });
});
