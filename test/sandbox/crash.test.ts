// Nothing acknowledged is lost to a crash: a real sandbox process takes a stream of idempotent
// creates over 32 keep-alive connections, is killed with SIGKILL mid-stream (a laptop sleeping,
// an OOM kill), and restarts on the same state. Every transfer answered 201 must exist, replaying
// its key must answer the same transfer (never a second one), and the balance decrypted locally
// must equal the funding minus every transfer listed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/domain/amount.js';
import { runCli } from '../helpers/cli.js';
import { spawnSandbox, type SpawnedSandbox } from '../helpers/run.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
const env = { SVC_CONFIG_DIR: dir, NO_COLOR: '1' };
const statePath = join(dir, 'sandbox', 'state.db');
let live: SpawnedSandbox | undefined;

afterAll(async () => {
  await live?.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const start = () => spawnSandbox(['sandbox', 'start', '--port', '0', '--state', statePath, '--block-time', '100ms', '--quiet'], env);
const aliceKey = () => (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: { sandbox: { apiKey: string } } }).profiles.sandbox.apiKey;
const units = (amount: string) => {
  const r = parseAmount(amount, 'USDG');
  if (!r.ok) throw new Error(r.rule);
  return r.units;
};
const amountOf = (i: number) => `0.0${(i % 7) + 1}`;
const bodyOf = (i: number) => JSON.stringify({ to: '@acme', amount: amountOf(i) });

describe('SIGKILL in the middle of a stream of creates', () => {
  it('keeps every acknowledged transfer; replays answer the same transfer; the balance adds up', async () => {
    live = await start();
    const key = aliceKey();
    const pool = new Pool(live.url, { connections: 32, pipelining: 1 });
    const acked = new Map<number, string>(); // request number → transfer id answered 201
    const KILL_AFTER = 300;
    let next = 0;
    let killed = false;
    const worker = async () => {
      while (!killed) {
        const i = next++;
        try {
          const res = await pool.request({
            path: '/v1/transfers', method: 'POST', body: bodyOf(i),
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `crash-${i}` },
          });
          const text = await res.body.text();
          if (res.statusCode !== 201) throw new Error(`unexpected ${res.statusCode}: ${text}`);
          acked.set(i, (JSON.parse(text) as { transfer_id: string }).transfer_id);
          if (acked.size >= KILL_AFTER && !killed) {
            killed = true;
            live!.child.kill('SIGKILL'); // no chance to flush anything
          }
        } catch (err) {
          if (!killed) throw err;
          return; // the connection died with the process
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    expect(await live.stop()).toBe(null); // it was killed, not stopped
    await pool.destroy().catch(() => {});
    expect(acked.size).toBeGreaterThanOrEqual(KILL_AFTER);

    live = await start();
    expect(live.stderr()).toMatch(/state restored/);
    const again = new Pool(live.url, { connections: 8 });
    try {
      for (const [i, id] of acked) {
        const get = await again.request({ path: `/v1/transfers/${id}`, method: 'GET', headers: { authorization: `Bearer ${key}` } });
        expect(get.statusCode, `transfer ${id} (request ${i}) is gone`).toBe(200);
        await get.body.dump();
        const replay = await again.request({
          path: '/v1/transfers', method: 'POST', body: bodyOf(i),
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `crash-${i}` },
        });
        expect(replay.statusCode).toBe(201);
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect((JSON.parse(await replay.body.text()) as { transfer_id: string }).transfer_id).toBe(id);
      }
    } finally {
      await again.close();
    }

    // Listed and decrypted locally with @alice's key from the profile (the CLI, in-process).
    const ls = await runCli(['--json', 'transfer', 'ls', '--all', '--decrypt'], { env });
    expect(ls.code, ls.stderr).toBe(0);
    const listed = JSON.parse(ls.stdout) as Array<{ transfer_id: string; from: string; amount: string }>;
    const mine = listed.filter((t) => t.from === '@alice');
    expect(new Set(mine.map((t) => t.transfer_id)).size).toBe(mine.length); // no transfer twice
    for (const id of acked.values()) expect(mine.some((t) => t.transfer_id === id)).toBe(true);
    expect(mine.length).toBeLessThanOrEqual(next); // at most one per request ever sent
    const spent = mine.reduce((sum, t) => sum + units(t.amount), 0n);
    const balance = await runCli(['--json', 'balance'], { env });
    expect(balance.code, balance.stderr).toBe(0);
    const usdg = (JSON.parse(balance.stdout) as Array<{ asset: string; amount: string }>).find((b) => b.asset === 'USDG')!;
    expect(units(usdg.amount)).toBe(units('1000') - spent);
    expect(await live.stop('SIGTERM')).toBe(0);
  }, 60_000);
});
