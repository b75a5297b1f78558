// Exit 0 means every payment happened exactly as written, once; when svc cannot know what the
// service did, it says the outcome is unknown and never sends again by itself (issue 32). Each
// case as a cron job meets it: a lossy proxy on loopback in front of the in-process sandbox
// (answers lost, a rate limiter's 429, a request held while another run goes), the sandbox's
// clock moved past its 24-hour memory of keys, and this machine's clock moved back (in-process,
// and for a spawned svc under libfaketime).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canary, expectNoCanary } from '../helpers/canary.js';
import { runCli, virtualClock } from '../helpers/cli.js';
import { runSvc, startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { isTransferPost, RATE_LIMITED, startLossyProxy, type LossyProxy, type ProxyAction } from '../helpers/lossy-proxy.js';
import { hasTool } from '../helpers/tools.js';

const HOUR = 3_600_000;
/** Amounts that occur nowhere else (canaries: no ledger line may hold them). */
const AMOUNT = '7321.4713';

let t: TestSandbox;
const count = async () => (await t.svcJson<unknown[]>(['transfer', 'ls', '--all'])).length;
const forget = async () => expect((await t.svc(['sandbox', 'clock', 'advance', '25h'])).code).toBe(0);
const ledgerText = () => {
  const dir = join(t.configDir, 'ledger');
  return readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => readFileSync(join(dir, f), 'utf8')).join('');
};

/** A proxy whose answers to POST /v1/transfers follow `posts` in order (the last repeats); every other request goes through. */
async function proxy(posts: ProxyAction[]): Promise<LossyProxy> {
  let n = 0;
  return startLossyProxy(t.url, (req) => (isTransferPost(req) ? posts[Math.min(n++, posts.length - 1)]! : 'forward'));
}

// The ledger is per service base URL: every run of a case goes through its proxy (the service
// reached through two base URLs would be two ledgers, docs/idempotency.md "Limits").

beforeAll(async () => {
  t = await startTestSandbox();
  expect((await t.svc(['sandbox', 'fund', '@alice', '100000'])).code).toBe(0);
}, 30_000);
afterAll(async () => {
  await t?.close();
});

describe('a lost answer followed by a refusal is not "nothing was made"', () => {
  it('transfer send: the first POST made the transfer and its answer was lost, the retry got 429: exit 5 idempotency_outcome_unknown with the key; 25 hours on, the same command still pays nothing', async () => {
    const p = await proxy(['drop-answer', RATE_LIMITED]);
    try {
      const env = { SVC_BASE_URL: p.url };
      const before = await count();
      const cmd = ['--json', 'transfer', 'send', '@acme', AMOUNT, '--idempotency-key', 'lost-then-429'];
      const first = await t.svc(cmd, { env });
      expect(first.code, first.stderr).toBe(5);
      expect(first.stdout).toBe('');
      const err = JSON.parse(first.stderr).error;
      expect(err).toMatchObject({ code: 'idempotency_outcome_unknown', idempotency_key: 'lost-then-429', refused_code: 'rate_limited' });
      expect(err.hint).toMatch(/svc transfer ls --since \d{4}-\d\d-\d\dT[\d:.]+Z/);
      expect(await count()).toBe(before + 1); // the service did make it
      expect(ledgerText()).toMatch(/"key":"lost-then-429"[^\n]*"status":"unknown"/);
      expectNoCanary(ledgerText(), canary(AMOUNT), 'the ledger');

      await forget(); // the service has forgotten the key: a new POST under it would pay again
      const again = await t.svc(cmd, { env });
      expect(again.code, again.stderr).toBe(5);
      expect(JSON.parse(again.stderr).error).toMatchObject({ code: 'idempotency_outcome_unknown', idempotency_key: 'lost-then-429' });
      expect(await count()).toBe(before + 1);
      expect(p.forwarded.filter(isTransferPost)).toHaveLength(1);
    } finally {
      await p.close();
    }
  });

  it('within the service\'s memory, the same command sends again under the same key and gets the transfer the lost try made (exit 0, one payment)', async () => {
    const p = await proxy(['drop-answer', RATE_LIMITED, RATE_LIMITED, 'forward']);
    try {
      const env = { SVC_BASE_URL: p.url };
      const before = await count();
      const cmd = ['--json', 'transfer', 'send', '@acme', '1.25', '--idempotency-key', 'lost-then-ok'];
      expect((await t.svc(cmd, { env })).code).toBe(5);
      const again = await t.svc(cmd, { env });
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ idempotency_key: 'lost-then-ok', transfer_id: expect.stringMatching(/^tr_/) });
      expect(await count()).toBe(before + 1);
      // A later rerun is answered from the ledger: accepted is final.
      await forget();
      const late = await t.svc(cmd, { env });
      expect(late.code, late.stderr).toBe(0);
      expect(await count()).toBe(before + 1);
    } finally {
      await p.close();
    }
  });
});

describe("windows on the service's clock: this machine's clock set back", () => {
  it('after a lost answer, this machine 48 hours behind and the service past its 24 hours: not sent again (exit 5), in-process', async () => {
    const p = await proxy(['drop-answer']);
    try {
      const before = await count();
      const cmd = ['--json', 'transfer', 'send', '@acme', '2.5', '--idempotency-key', 'lost-clock-back'];
      const first = await t.svc(cmd, { env: { SVC_BASE_URL: p.url } });
      expect(first.code, first.stderr).toBe(7); // no answer at all: unknown
      expect(await count()).toBe(before + 1);
      await forget();
      // The same command (the same service: its answers go through now), the machine's clock now
      // 48 hours earlier than when it was tried.
      const back = await runCli(cmd, { env: { ...t.env, SVC_BASE_URL: p.url }, clock: virtualClock(Date.now() - 48 * HOUR) });
      expect(back.code, back.stderr).toBe(5);
      expect(JSON.parse(back.stderr).error).toMatchObject({ code: 'idempotency_outcome_unknown', idempotency_key: 'lost-clock-back' });
      expect(await count()).toBe(before + 1);
    } finally {
      await p.close();
    }
  });

  it.skipIf(!hasTool('faketime'))('the same for a spawned svc under faketime -48h, and one run at +91 days drops nothing', async () => {
    // Every try of the first command loses its answer (three tries); later POSTs go through.
    const p = await proxy(['drop-answer', 'drop-answer', 'drop-answer', 'forward']);
    try {
      const before = await count();
      const cmd = ['--json', 'transfer', 'send', '@acme', '3.5', '--idempotency-key', 'lost-faketime'];
      expect((await runSvc(cmd, t.env, { env: { SVC_BASE_URL: p.url } })).code).toBe(7);
      await forget();
      const env = { SVC_BASE_URL: p.url };
      const back = await runSvc(cmd, t.env, { faketime: '-48h', env });
      expect(back.code, back.stderr).toBe(5);
      expect(JSON.parse(back.stderr).error.code).toBe('idempotency_outcome_unknown');
      // A run with the machine's clock 91 days ahead (the service's is not): nothing is pruned.
      const ahead = await runSvc(['--json', 'transfer', 'send', '@acme', '0.5', '--idempotency-key', 'probe-ahead'], t.env, { faketime: '+91d', env });
      expect(ahead.code, ahead.stderr).toBe(0);
      expect(ledgerText()).toContain('"key":"lost-faketime"');
      const now = await runSvc(cmd, t.env, { env });
      expect(now.code).toBe(5);
      expect(await count()).toBe(before + 2); // the lost one, and the probe
    } finally {
      await p.close();
    }
  });
});

describe('overlapping runs: a stale refusal never shadows a success', () => {
  it('run A (an old key, revoked while its request waits) records 401 after run B was accepted under the same key: a day later, run C pays nothing', async () => {
    const old = (await t.svc(['sandbox', 'key', 'create', '--account', '@alice', '--name', 'old-cron'])).stdout.trim();
    const keyId = (await t.svcJson<Array<{ key_id: string; name: string }>>(['sandbox', 'key', 'ls', '--account', '@alice'])).find((k) => k.name === 'old-cron')!.key_id;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let heldOne!: () => void;
    const isHeld = new Promise<void>((r) => (heldOne = r));
    // Everyone goes through one base URL (one ledger); A's POST (the old key's) waits at the proxy.
    const p = await startLossyProxy(t.url, async (req): Promise<ProxyAction> => {
      if (isTransferPost(req) && req.headers.authorization === `Bearer ${old}`) {
        heldOne();
        await held;
      }
      return 'forward';
    });
    try {
      const before = await count();
      const cmd = ['--json', 'transfer', 'send', '@acme', '4.75', '--idempotency-key', 'rent-overlap'];
      const a = t.svc(cmd, { env: { SVC_BASE_URL: p.url, SVC_API_KEY: old } });
      await isHeld; // A read the ledger (nothing there) and its POST is out
      const b = await t.svc(cmd, { env: { SVC_BASE_URL: p.url } });
      expect(b.code, b.stderr).toBe(0);
      expect((await t.svc(['sandbox', 'key', 'revoke', keyId, '--yes'])).code).toBe(0);
      release();
      const ra = await a;
      expect(ra.code).toBe(3); // 401: A's key was revoked meanwhile
      expect(await count()).toBe(before + 1);
      await forget();
      const c = await t.svc(cmd, { env: { SVC_BASE_URL: p.url } });
      expect(c.code, c.stderr).toBe(0);
      expect(c.stderr).toMatch(/already sent under idempotency key rent-overlap/);
      expect(JSON.parse(c.stdout).transfer_id).toBe(JSON.parse(b.stdout).transfer_id);
      expect(await count()).toBe(before + 1);
    } finally {
      release();
      await p.close();
    }
  });
});
