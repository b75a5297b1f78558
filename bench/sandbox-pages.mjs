// Paging a 100,000-transfer account in the sandbox (in process, over loopback HTTP): the first,
// a middle and the last page, a time window and a status filter, mean of 20 requests each.
// (The test suite checks what the pages contain; how long they take is measured here.)
import { openSandbox } from '../dist/sandbox/index.js';
import { report } from './measure.mjs';

const N = Number(process.env.BENCH_PAGES_TRANSFERS ?? 100_000);
const { handle, world } = await openSandbox({ port: 0, ephemeral: true, blockTimeMs: 1500 });
try {
  const key = handle.seeded.find((a) => a.handle === '@alice').apiKey;
  const alice = world.store.accountByHandle('@alice');
  const acme = world.store.accountByHandle('@acme');
  world.store.credit(alice.account_id, 'USDG', 10n ** 12n);
  for (let i = 0; i < N; i++) {
    world.chain.submit({ from: alice, to: '@acme', toAccount: acme, toAddress: acme.public_key, asset: 'USDG', units: 1n, confidential: true, memo: undefined, now: world.now() });
    if (i % 10_000 === 9_999) await handle.advance(1000);
  }
  await handle.advance(1500);

  const get = async (path) => {
    const res = await fetch(handle.url + path, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return res.json();
  };
  const mean = async (path, n = 20) => {
    await get(path);
    const started = performance.now();
    for (let i = 0; i < n; i++) await get(path);
    return (performance.now() - started) / n;
  };
  const pivot = (await get(`/v1/transfers?limit=1&offset=${Math.floor(N * 0.55)}`)).transfers[0].created_at;
  const rows = [];
  for (const [label, path] of [
    ['first page (limit=100)', '/v1/transfers?limit=100'],
    ['middle page (offset n/2)', `/v1/transfers?limit=100&offset=${N / 2}`],
    ['last page', `/v1/transfers?limit=100&offset=${N - 50}`],
    ['time window (to=…)', `/v1/transfers?limit=100&to=${encodeURIComponent(pivot)}`],
    ['status=confirmed, offset 1000', '/v1/transfers?status=confirmed&limit=100&offset=1000'],
    ['status=failed (none: scans all)', '/v1/transfers?status=failed'],
  ]) rows.push({ label, ms: await mean(path) });
  report(`sandbox: one page of GET /v1/transfers over ${N.toLocaleString('en')} transfers`, rows, 'mean of 20 requests, in process');
} finally {
  await handle.close();
}
