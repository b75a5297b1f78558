// Scale checks: a 100,000-transfer account pages in O(limit), and the server takes thousands
// of requests per second on loopback. Thresholds are loose (CI machines vary) but can fail.
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, units, type TestSandbox } from './helpers.js';

const N = 100_000;
let t: TestSandbox;

beforeAll(async () => {
  t = await startSandbox({ blockTimeMs: 1500 });
  const alice = t.world.store.accountByHandle('@alice')!;
  const acme = t.world.store.accountByHandle('@acme')!;
  t.world.store.credit(alice.account_id, 'USDG', units('1000000'));
  for (let i = 0; i < N; i++) {
    const transfer = t.world.chain.submit({
      from: alice, to: '@acme', toAccount: acme, toAddress: acme.public_key, asset: 'USDG', units: 1n, confidential: true, memo: undefined, now: t.world.now(),
    });
    if (!transfer) throw new Error('submit failed');
    if (i % 10_000 === 9_999) await t.sandbox.advance(1000); // spread created_at over 10 s
  }
  await t.sandbox.advance(1500); // everything settles
}, 120_000);

afterAll(async () => {
  await t.close();
});

async function timed(path: string, n = 20): Promise<{ ms: number; body: { transfers: unknown[]; has_more: boolean } }> {
  let body: { transfers: unknown[]; has_more: boolean } | undefined;
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await t.as('@alice').get(path);
    expect(res.status).toBe(200);
    body = res.body;
  }
  return { ms: (performance.now() - started) / n, body: body! };
}

describe('100,000 transfers on one account', () => {
  it('pages without filters in O(limit): first, middle and last pages are fast', async () => {
    expect(t.world.store.countTransfers(t.accountId('@alice'))).toBe(N);
    for (const q of ['limit=100', 'limit=100&offset=50000', 'limit=100&offset=99950']) {
      const { ms, body } = await timed(`/v1/transfers?${q}`);
      expect(ms, q).toBeLessThan(25);
      expect(body.transfers.length).toBe(q.endsWith('99950') ? 50 : 100);
    }
  });

  it('time windows are found by binary search', async () => {
    const list = await t.as('@alice').get('/v1/transfers?limit=1&offset=55000');
    const pivot = list.body.transfers[0].created_at as string;
    const { ms, body } = await timed(`/v1/transfers?limit=100&to=${encodeURIComponent(pivot)}`);
    expect(ms).toBeLessThan(25);
    expect(body.transfers.length).toBe(100);
    expect(body.has_more).toBe(true);
  });

  it('a status filter stays well under a few ms per page', async () => {
    const { ms, body } = await timed('/v1/transfers?status=confirmed&limit=100&offset=1000');
    expect(ms).toBeLessThan(50);
    expect(body.transfers.length).toBe(100);
    const none = await timed('/v1/transfers?status=failed', 5); // worst case: scans the whole list
    expect(none.body.transfers).toEqual([]);
    expect(none.ms).toBeLessThan(100);
  });
});

describe('throughput', () => {
  it('serves thousands of requests per second over keep-alive', async () => {
    const pool = new Pool(t.sandbox.url, { connections: 32 });
    const key = t.keyOf('@acme');
    const total = 4000;
    let next = 0;
    let failures = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < total) {
          const i = next++;
          const res = i % 2
            ? await pool.request({ method: 'GET', path: '/v1/accounts/me', headers: { authorization: `Bearer ${key}` } })
            : await pool.request({
                method: 'POST',
                path: '/v1/transfers',
                headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `tp-${i}` },
                body: JSON.stringify({ to: '@bob', amount: '0.01' }),
              });
          if (res.statusCode !== (i % 2 ? 200 : 201)) failures++;
          await res.body.dump();
        }
      }),
    );
    const perSecond = total / ((performance.now() - started) / 1000);
    await pool.close();
    console.log(`sandbox throughput: ${Math.round(perSecond)} req/s (half POST /v1/transfers)`);
    expect(failures).toBe(0);
    expect(perSecond).toBeGreaterThan(1000);
  });
});
