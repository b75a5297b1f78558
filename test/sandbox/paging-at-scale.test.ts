// Scale checks of what the answers contain: a large account pages correctly at its start, middle
// and end, through a time window and a status filter, and thousands of concurrent requests over
// keep-alive all succeed. How long they take is measured in bench/ (sandbox-pages.mjs,
// sandbox-post.mjs), not asserted here: a shared machine makes timed tests flaky.
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyPool } from '../../src/sandbox/crypto/key-pool.js';
import { startSandbox, units, type TestSandbox } from './helpers.js';

const N = 30_000;
let t: TestSandbox;

beforeAll(async () => {
  t = await startSandbox({ blockTimeMs: 1500 });
  const alice = t.world.store.accountByHandle('@alice')!;
  const acme = t.world.store.accountByHandle('@acme')!;
  t.world.store.credit(alice.account_id, 'USDG', units('1000000'));
  // The rows POST /v1/transfers writes (chain.submit: the same reservation, ids and ciphertexts),
  // each chunk of 3,000 in store transactions of 500 rather than one each: a commit and the
  // balance row written 60 times, not 30,000 (~4 s of the file's CPU). Settlement is scheduled
  // at each commit, before the clock moves, as it was at each submit's. Between transactions the
  // sandbox's key pool (crypto/key-pool.ts) is let refill, as it does between the requests of a
  // busy sandbox: 59,000 of the 60,000 ciphertexts then use its prepared keys, as POSTs under
  // load do, which cost less CPU than keys made on the spot (~3 s of the file's ~30).
  for (let chunk = 0; chunk < N / 3_000; chunk++) {
    for (let part = 0; part < 6; part++) {
      t.world.store.tx(() => {
        for (let i = 0; i < 500; i++) {
          const transfer = t.world.chain.submit({
            from: alice, to: '@acme', toAccount: acme, toAddress: acme.public_key, asset: 'USDG', units: 1n, confidential: true, memo: undefined, now: t.world.now(),
          });
          if (!transfer) throw new Error('submit failed');
        }
      });
      await keyPool.idle();
    }
    await t.sandbox.advance(1000); // spread created_at over 10 s
  }
  await t.sandbox.advance(1500); // everything settles
}, 120_000);

afterAll(async () => {
  await t.close();
});

interface Page {
  transfers: Array<{ transfer_id: string; created_at: string; status: string }>;
  has_more: boolean;
}

async function page(path: string): Promise<Page> {
  const res = await t.as('@alice').get(path);
  expect(res.status, res.text).toBe(200);
  return res.body as Page;
}

/** Every transfer id, newest first, as the store holds them (what the pages must show). */
const allIds = () => [...t.world.store.allTransfers()].map((x) => x.transfer_id).reverse();

describe('30,000 transfers on one account', () => {
  it('the first, a middle and the last page hold exactly the right transfers, newest first', async () => {
    expect(t.world.store.countTransfers(t.accountId('@alice'))).toBe(N);
    const ids = allIds();
    for (const offset of [0, N / 2, N - 50]) {
      const body = await page(`/v1/transfers?limit=100&offset=${offset}`);
      expect(body.transfers.map((x) => x.transfer_id)).toEqual(ids.slice(offset, offset + 100));
      expect(body.has_more).toBe(offset + 100 < N);
    }
  });

  it('a time window (to=) starts at the first transfer created before it', async () => {
    const pivot = (await page('/v1/transfers?limit=1&offset=16500')).transfers[0]!.created_at;
    const body = await page(`/v1/transfers?limit=100&to=${encodeURIComponent(pivot)}`);
    const expected = [...t.world.store.allTransfers()].filter((x) => x.created_at < Date.parse(pivot)).map((x) => x.transfer_id).reverse().slice(0, 100);
    expect(body.transfers.map((x) => x.transfer_id)).toEqual(expected);
    expect(body.has_more).toBe(true);
  });

  it('a status filter pages through the matches, and an empty filter answers []', async () => {
    const body = await page('/v1/transfers?status=confirmed&limit=100&offset=1000');
    expect(body.transfers.map((x) => x.transfer_id)).toEqual(allIds().slice(1000, 1100));
    expect(body.transfers.every((x) => x.status === 'confirmed')).toBe(true);
    expect(await page('/v1/transfers?status=failed')).toMatchObject({ transfers: [], has_more: false });
  });
});

describe('concurrency', () => {
  it('4,000 mixed requests over 32 keep-alive connections all succeed, and every POST is stored once', async () => {
    const pool = new Pool(t.sandbox.url, { connections: 32 });
    const key = t.keyOf('@acme');
    const total = 4000;
    const before = t.world.store.countTransfers(t.accountId('@acme'));
    let next = 0;
    let failures = 0;
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
    await pool.close();
    expect(failures).toBe(0);
    expect(t.world.store.countTransfers(t.accountId('@acme')) - before).toBe(total / 2);
  });
});
