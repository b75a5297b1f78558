// The reference for `svc --json transfer ls --all` (bench/list-all.mjs): a bare undici Client that
// pages GET /v1/transfers of the sandbox profile in SVC_CONFIG_DIR the same way (100 a page, the
// next page asked for as one is written, waiting for stdout to drain) and writes the same bytes
// (`[`, one row per line, `]`). What paging that sandbox costs with nothing else: no checks, no
// retries, no time budget, no sanitising. Run as `node --liftoff-only bench/list-reference.mjs`
// (the V8 flag svc sets for itself, bin/svc.js).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'undici';

const profile = JSON.parse(readFileSync(join(process.env.SVC_CONFIG_DIR, 'config.json'), 'utf8')).profiles.sandbox;
const client = new Client(profile.baseUrl);
const page = async (offset) => {
  const res = await client.request({ method: 'GET', path: `/v1/transfers?limit=100&offset=${offset}`, headers: { authorization: `Bearer ${profile.apiKey}` } });
  if (res.statusCode !== 200) throw new Error(`GET /v1/transfers: ${res.statusCode}`);
  return JSON.parse(await res.body.text());
};
let offset = 0;
let rows = 0;
let next = page(0);
for (;;) {
  const { transfers, has_more: more } = await next;
  if (more) next = page((offset += transfers.length));
  let chunk = '';
  for (const t of transfers) chunk += `${rows++ === 0 ? '[' : ','}\n${JSON.stringify(t)}`;
  if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  if (!more) break;
}
process.stdout.write(rows ? '\n]\n' : '[]\n');
await client.close();
