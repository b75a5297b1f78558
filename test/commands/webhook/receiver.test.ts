// The listener's rules without a terminal or a service: what makes it call out (re-learning the
// service clock), how it answers the service for the local app it forwards to (the app's status,
// its Retry-After, 502 when unreachable, 504 + Retry-After: 60 when it does not answer in time),
// and what it says the service does next (the retry schedule of DESIGN.md).
import { createHmac } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, FORWARD_TIMEOUT_MS, type Received, type Refused } from '../../../src/commands/webhook/receiver.js';
import { retryNote, retryWords } from '../../../src/commands/webhook/retry-note.js';
import { startReceiver, type Behaviour } from '../../helpers/webhook-receiver.js';

const SECRET = 'whsec_receiverunittest0001';
const sign = (body: string) => createHmac('sha256', SECRET).update(body).digest('hex');
let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function receiver(now: () => number, forward?: { url: string; timeoutMs: number }) {
  const reports: Array<Received | Refused> = [];
  let resyncs = 0;
  const handler = createReceiver({
    secret: () => SECRET, toleranceMs: 300_000, now, resync: async () => void (resyncs += 1), forwardUnverified: false, report: (r) => reports.push(r),
    ...(forward ? { forward: new URL(forward.url), forwardTimeoutMs: forward.timeoutMs } : {}),
    failed: (err) => {
      throw err;
    },
  });
  server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const answer = (body: string, signature: string, attempt = '1') =>
    new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature, 'x-service-delivery-attempt': attempt } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const post = async (body: string, signature: string) => (await answer(body, signature)).status;
  return { post, answer, reports, resyncs: () => resyncs };
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

describe('createReceiver --forward-to: the service is answered what the local app answered', () => {
  const NOW = Date.parse('2026-11-23T12:00:00Z');
  const fresh = (id: string) => JSON.stringify({ event_id: id, event: 'transfer.confirmed', timestamp: '2026-11-23T12:00:00Z' });

  it('its status (2xx or not) and its Retry-After; the retry the service makes next', async () => {
    const answers: Behaviour[] = [{ status: 204 }, { status: 500 }, { status: 429, headers: { 'retry-after': '120' } }, { status: 302, headers: { location: 'http://elsewhere/' } }];
    const app = await startReceiver((n) => answers[n - 1]!);
    try {
      const r = await receiver(() => NOW, { url: app.url, timeoutMs: FORWARD_TIMEOUT_MS });
      const got = [];
      for (const [i, attempt] of ['1', '1', '2', '7'].entries()) got.push(await r.answer(fresh(`evt_${i}`), sign(fresh(`evt_${i}`)), attempt));
      expect(got).toEqual([{ status: 204, retryAfter: undefined }, { status: 500, retryAfter: undefined }, { status: 429, retryAfter: '120' }, { status: 302, retryAfter: undefined }]);
      expect(r.reports.map((x) => 'check' in x && [x.status, x.forwarded, x.retry])).toEqual([
        [204, { status: 204 }, undefined],
        [500, { status: 500 }, { attempt: 2, inMs: 5_000 }],
        [429, { status: 429, retryAfter: '120' }, { attempt: 3, inMs: 300_000 }], // 5 min is more than the 2 min asked
        [302, { status: 302 }, { attempt: 8, last: true }],
      ]);
    } finally {
      await app.close();
    }
  });

  it('an app that does not answer in time: 504 with Retry-After: 60, so the service waits a minute as after its own timeout', async () => {
    const app = await startReceiver(() => 'hang');
    try {
      const r = await receiver(() => NOW, { url: app.url, timeoutMs: 50 });
      expect(await r.answer(fresh('evt_slow'), sign(fresh('evt_slow')), '1')).toEqual({ status: 504, retryAfter: '60' });
      expect(r.reports[0]).toMatchObject({ status: 504, forwarded: { error: 'no answer within 50ms', timedOut: true }, retry: { attempt: 2, inMs: 60_000 } });
      await app.released();
    } finally {
      await app.close();
    }
  });

  it('an app that cannot be reached: 502', async () => {
    const r = await receiver(() => NOW, { url: 'http://127.0.0.1:9/hooks', timeoutMs: FORWARD_TIMEOUT_MS });
    expect(await r.answer(fresh('evt_down'), sign(fresh('evt_down')), '8')).toEqual({ status: 502, retryAfter: undefined });
    expect(r.reports[0]).toMatchObject({ status: 502, forwarded: { error: 'connection refused' }, retry: { exhausted: true } });
  });

  it('the forward timeout is below the service\'s 15 s delivery timeout', () => {
    expect(FORWARD_TIMEOUT_MS).toBeLessThan(15_000);
  });
});

describe('retryNote: DESIGN.md\'s schedule, read from the attempt that failed', () => {
  it('5s, 5m, 30m, 2h, 5h, 10h, then the last at 24 h; a timeout or Retry-After waits at least a minute', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryNote(n))).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000].map((inMs, i) => ({ attempt: i + 2, inMs })));
    expect(retryNote(7)).toEqual({ attempt: 8, last: true });
    expect(retryNote(8)).toEqual({ exhausted: true });
    expect(retryNote(1, { timedOut: true })).toEqual({ attempt: 2, inMs: 60_000 });
    expect(retryNote(1, { retryAfterMs: 90_000 })).toEqual({ attempt: 2, inMs: 90_000 });
    expect(retryWords(retryNote(1), undefined)).toBe('the service retries in ~5s (attempt 2)');
    expect(retryWords(retryNote(7), undefined)).toBe("the service's last attempt (8) comes 24h after the first");
    expect(retryWords(retryNote(8), '`svc webhook replay wh_1 evt_1`')).toBe('that was the last attempt: `svc webhook replay wh_1 evt_1` sends it again');
  });
});
