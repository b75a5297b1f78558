// A batch row whose answer was lost (the connection dropped, the process killed mid-request): the
// service may hold a transfer under its key, and remembers the key for 24 hours only. A rerun
// within that window sends it again under the same key (the service answers for the first one);
// a rerun after it must not send it at all, since the service would take it for a new payment.
// Against a scripted service, so the answer can be lost on demand, and the tool's clock set.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, virtualClock } from '../../../helpers/cli.js';
import { spawnSvc } from '../../../helpers/run.js';
import { answeringAccount, startScriptedServer, UNKNOWN_TEST_KEY, type ScriptedServer } from '../../../helpers/scripted-server.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-03-01T09:00:00Z');

interface Row { line: number; status: string; transfer_id?: string; idempotency_key: string; error_code?: string; message?: string }
interface Doc { rows: Row[] }

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tmp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** A service that accepts a transfer, or drops the connection unanswered while `lose` is set; its clock is `state.now`. */
async function service(state: { lose: boolean; now?: number }): Promise<ScriptedServer> {
  let n = 0;
  return startScriptedServer(answeringAccount((req) => {
    if (req.method !== 'POST') return { status: 404, body: { error: { code: 'not_found', message: 'not here' } } };
    if (state.lose) return 'reset';
    n += 1;
    return { status: 201, body: { transfer_id: `tr_lostrow${n}`, status: 'pending', to: '@acme', confidential: true, tx_hash: '0x1', created_at: '2026-03-01T09:00:00Z' } };
  }), { now: () => state.now ?? T0 });
}

function setup(server: ScriptedServer) {
  const dir = tmp('svc-lost-row-');
  const file = join(dir, 'payouts.csv');
  writeFileSync(file, 'to,amount,ref\n@acme,5,R-1\n');
  const env = { SVC_CONFIG_DIR: join(dir, 'config'), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url, NO_COLOR: '1' };
  const run = async (at: number) => {
    const r = await runCli(['--json', 'transfer', 'batch', file, '--timeout', '5s'], { env, clock: virtualClock(at) });
    return { code: r.code, doc: JSON.parse(r.stdout) as Doc, stderr: r.stderr };
  };
  const posts = () => server.requests.filter((q) => q.method === 'POST');
  return { env, file, run, posts };
}

describe('transfer batch: a row whose answer was lost', () => {
  it('is sent again under the same key within the service\'s 24 hours', async () => {
    const state = { lose: true };
    const server = await service(state);
    try {
      const { run, posts } = setup(server);
      const first = await run(T0);
      expect(first.code, first.stderr).toBe(7); // the outcome is unknown
      expect(first.doc.rows[0]).toMatchObject({ status: 'failed', error_code: 'network_error' });
      const key = first.doc.rows[0]!.idempotency_key;

      // An hour later the service answers: the same key, so it answers for the first try too.
      state.lose = false;
      const second = await run(T0 + HOUR);
      expect(second.code, second.stderr).toBe(0);
      expect(second.doc.rows[0]).toMatchObject({ status: 'sent', transfer_id: 'tr_lostrow1', idempotency_key: key });
      expect(new Set(posts().map((q) => q.headers['idempotency-key']))).toEqual(new Set([key]));
    } finally {
      await server.close();
    }
  });

  it('lost, then run again 30 hours later: not sent (idempotency_outcome_unknown, exit 5), with where to look', async () => {
    const state = { lose: true, now: T0 };
    const server = await service(state);
    try {
      const { run, posts } = setup(server);
      expect((await run(T0)).code).toBe(7);
      const tried = posts().length;
      state.lose = false; // the service is back, and has long forgotten the key
      state.now = T0 + 30 * HOUR;
      const late = await run(T0 + 30 * HOUR);
      expect(late.code, late.stderr).toBe(5);
      expect(late.doc.rows[0]).toMatchObject({ status: 'failed', error_code: 'idempotency_outcome_unknown' });
      expect(late.doc.rows[0]!.message).toContain('svc transfer ls --since 2026-03-01T09:00:00.000Z');
      expect(posts()).toHaveLength(tried); // nothing sent
      // And again: still refused (the first try's time is kept, not the refusal's).
      expect((await run(T0 + 60 * HOUR)).doc.rows[0]).toMatchObject({ error_code: 'idempotency_outcome_unknown' });
      expect(posts()).toHaveLength(tried);
    } finally {
      await server.close();
    }
  });

  it('the process killed (SIGKILL) while the request is out: a rerun 30 hours later does not send it', async () => {
    let posted!: () => void;
    const out = new Promise<void>((resolve) => (posted = resolve));
    const server = await startScriptedServer(answeringAccount((req) => (req.method === 'POST' ? (posted(), 'hang') : { status: 404, body: {} })));
    try {
      const { env, file, run, posts } = setup(server);
      const child = spawnSvc(['--json', 'transfer', 'batch', file], env);
      await out; // the request is out (the service has it): now kill without mercy
      child.child.kill('SIGKILL');
      await child.exited;
      const late = await run(Date.now() + 30 * HOUR); // the child ran on the machine's clock
      expect(late.code, late.stderr).toBe(5);
      expect(late.doc.rows[0]).toMatchObject({ status: 'failed', error_code: 'idempotency_outcome_unknown' });
      expect(posts()).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
