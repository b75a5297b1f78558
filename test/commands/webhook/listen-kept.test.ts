// `webhook listen` keeps one subscription per profile and forward URL between runs, as
// `stripe listen` keeps its secret: the whole secret is printed on stderr at start (never on
// stdout), the next run takes the subscription over (same id, same secret, one subscription on
// the service), a second run while the first listens is refused (listen_running, exit 5), a run
// killed with SIGKILL leaves nothing the next cannot take over, and a subscription that can no
// longer serve (another port, other events, deleted) is replaced, and the change said.
// Spawned (bin/svc.js) where a real process matters (its pid holds the slot), in-process otherwise.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { listenInProcess } from '../../helpers/listen.js';
import { spawnSvc, type LiveRun } from '../../helpers/run.js';
import { startScriptedServer, UNKNOWN_TEST_KEY } from '../../helpers/scripted-server.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

let t: TestSandbox;
const children: LiveRun[] = [];
beforeAll(async () => {
  t = await startTestSandbox();
});
/** Kept subscriptions outlive their test: none is left to deliver to a port a later listen may be given. */
async function removeSubscriptions(): Promise<void> {
  for (const w of await t.svcJson<Array<{ webhook_id: string }>>(['webhook', 'ls'])) await t.svc(['--yes', 'webhook', 'rm', w.webhook_id]);
}
afterEach(async () => {
  for (const c of children) if (!c.done()) c.child.kill('SIGKILL');
  await removeSubscriptions();
});
afterAll(async () => {
  for (const c of children) if (!c.done()) c.child.kill('SIGKILL');
  await t?.close();
});

const SECRET_LINE = /signing secret: (\S+)\n/;
const subscriptions = async () => (await t.svcJson<Array<{ webhook_id: string; url: string }>>(['webhook', 'ls'])).map((w) => w.webhook_id);

/** bin/svc.js webhook listen (no --print-secret), once it is listening: its URL, subscription and secret. */
async function spawnListen(args: string[]): Promise<{ run: LiveRun; url: string; webhookId: string; secret: string }> {
  const run = spawnSvc(['webhook', 'listen', ...args], t.env);
  children.push(run);
  await run.waitFor('stderr', SECRET_LINE);
  const m = /listening on (http:\/\/\S+) \(subscription (wh_\w+)[^\n]*\nsigning secret: (\S+)\n/.exec(run.stderr())!;
  return { run, url: m[1]!, webhookId: m[2]!, secret: m[3]! };
}

/** An in-process listen that must not start: its result (a listen that starts anyway is stopped at once, exit 130). */
function refusedListen(args: string[]): Promise<CliResult> {
  const stop = new AbortController();
  let err = '';
  return runCli(['webhook', 'listen', ...args], {
    env: t.env,
    interrupt: stop.signal,
    onStderr: (s) => {
      err += s;
      if (/listening on/.test(err)) stop.abort('SIGINT');
    },
  });
}

describe('webhook listen keeps its subscription, and its secret, from run to run', () => {
  it('two runs print the same whole secret on stderr; the second takes the first\'s subscription over; one subscription exists', async () => {
    const forward = 'http://127.0.0.1:9/kept-a';
    const a = await spawnListen(['--json', '--forward-to', forward]);
    expect(a.secret).toMatch(/^whsec_[A-Za-z0-9_-]{16,}$/); // whole, not masked
    expect(a.run.stderr()).toMatch(/created subscription wh_\w+, kept for the next run/);
    a.run.child.kill('SIGINT');
    const endA = await a.run.exited;
    expect(endA.code).toBe(130);
    expect(endA.stderr).toContain(`kept subscription ${a.webhookId} for the next run (delete it with \`svc webhook rm ${a.webhookId} --yes\`)`);
    expect(endA.stdout).toBe('');
    expect(await subscriptions()).toContain(a.webhookId);

    const b = await spawnListen(['--json', '--forward-to', forward]);
    expect(b.run.stderr()).toContain(`took over subscription ${a.webhookId}, kept from an earlier run: the same signing secret`);
    expect([b.webhookId, b.secret, b.url]).toEqual([a.webhookId, a.secret, a.url]);
    expect((await subscriptions()).filter((id) => id === a.webhookId || id === b.webhookId)).toEqual([a.webhookId]);
    expect((await t.svcJson<Array<{ url: string }>>(['webhook', 'ls'])).filter((w) => w.url === a.url)).toHaveLength(1);
    // The kept secret still verifies what the service signs.
    const ev = await t.svc(['sandbox', 'trigger', 'transfer.confirmed']);
    await b.run.waitFor('stdout', new RegExp(`"event_id":"${ev.stdout.trim()}".*"valid":true`));
    b.run.child.kill('SIGINT');
    const endB = await b.run.exited;
    expect(endB.stdout).not.toContain(a.secret);
    for (const line of endB.stdout.trim().split('\n')) expect(typeof JSON.parse(line)).toBe('object');

    // Kept like the other machine-local secrets: a 0600 file in a 0700 folder; never in config.json.
    const folder = join(t.configDir, 'webhook-listen');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const kept = readdirSync(folder).filter((f) => f.endsWith('.json')).map((f) => join(folder, f)).filter((f) => readFileSync(f, 'utf8').includes(a.webhookId));
    expect(kept).toHaveLength(1);
    expect(statSync(kept[0]!).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(kept[0]!, 'utf8'))).toMatchObject({ webhook_id: a.webhookId, secret: a.secret, url: a.url, forward_to: forward, profile: 'sandbox' });
    expect(readFileSync(join(t.configDir, 'config.json'), 'utf8')).not.toContain(a.secret);
  });

  it('a second run for the same profile and forward URL is refused while the first listens (listen_running, exit 5); after a SIGKILL the next run takes over', async () => {
    const forward = 'http://127.0.0.1:9/kept-b';
    const a = await spawnListen(['--forward-to', forward]);
    const refused = await refusedListen(['--forward-to', forward]);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(new RegExp(`^error: another svc webhook listen \\(process ${a.run.child.pid}\\) is running for this profile \\(sandbox\\) and --forward-to ${forward}: it holds the kept subscription \\(listen_running\\)\\nhint: stop it first, or run this one with \`svc webhook listen --temporary\``));
    const json = await runCli(['--json', 'webhook', 'listen', '--forward-to', forward], { env: t.env });
    expect([json.code, json.stdout]).toEqual([5, '']);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'listen_running' } });
    // Another forward URL is another subscription: it runs alongside.
    const other = await listenInProcess(t, ['--forward-to', `${forward}-other`]);
    expect(other.webhookId).not.toBe(a.webhookId);
    expect((await other.stop()).code).toBe(130);

    // A listen killed outright leaves its slot to the next run: the same subscription and secret.
    a.run.child.kill('SIGKILL');
    await a.run.exited;
    const b = await listenInProcess(t, ['--forward-to', forward]);
    expect([b.webhookId, b.secret]).toEqual([a.webhookId, a.secret]);
    expect(b.stderr()).toMatch(/took over subscription/);
    expect((await b.stop()).code).toBe(130);
  });

  it('every way out lets the next run take over: an error inside the receiver (exit 70) too', async () => {
    const forward = 'http://127.0.0.1:9/kept-c';
    let fail = true;
    const a = await listenInProcess(t, ['--forward-to', forward], {
      onStdout: () => {
        if (fail) throw new Error('stdout is gone');
      },
    });
    await t.svc(['sandbox', 'trigger', 'transfer.confirmed']);
    const end = await a.done;
    fail = false;
    expect(end.code).toBe(70);
    expect(end.stderr).toContain(`kept subscription ${a.webhookId} for the next run`);
    const b = await listenInProcess(t, ['--forward-to', forward]);
    expect([b.webhookId, b.secret]).toEqual([a.webhookId, a.secret]);
    await b.stop();
  });

  it('a subscription that cannot serve this run is replaced and the change said: another port, the kept port taken, other events, deleted', async () => {
    const forward = 'http://127.0.0.1:9/kept-d';
    const first = await listenInProcess(t, ['--forward-to', forward]);
    await first.stop();
    const replaced = /replaced the kept subscription (wh_\w+) \((.*)\) with (wh_\w+): the signing secret CHANGED\n/;

    // --port given, and another: the service has no update route, so a new subscription, a new secret; the old one deleted.
    const moved = await listenInProcess(t, ['--forward-to', forward, '--port', '0']);
    await moved.stop();
    const m1 = replaced.exec(moved.stderr())!;
    expect(m1[1]).toBe(first.webhookId);
    expect(m1[2]).toBe(`it delivers to ${first.url}, this run listens on ${moved.url}`);
    expect(moved.secret).not.toBe(first.secret);
    expect(await subscriptions()).not.toContain(first.webhookId);
    expect(await subscriptions()).toContain(moved.webhookId);

    // Its port taken by someone else meanwhile: listen takes another and says why.
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(Number(new URL(moved.url).port), '127.0.0.1', r));
    try {
      const busy = await listenInProcess(t, ['--forward-to', forward]);
      await busy.stop();
      expect(busy.stderr()).toContain(`port ${new URL(moved.url).port} of the kept subscription is in use: listening on another\n`);
      expect(replaced.exec(busy.stderr())![1]).toBe(moved.webhookId);
      expect(await subscriptions()).not.toContain(moved.webhookId);

      // Other events.
      const narrower = await listenInProcess(t, ['--forward-to', forward, '--events', 'transfer.failed']);
      await narrower.stop();
      expect(replaced.exec(narrower.stderr())![2]).toMatch(/^it was for other events \(transfer\.initiated,/);

      // Deleted by hand: it no longer exists.
      expect((await t.svc(['--yes', 'webhook', 'rm', narrower.webhookId!])).code).toBe(0);
      const again = await listenInProcess(t, ['--forward-to', forward, '--events', 'transfer.failed']);
      await again.stop();
      expect(replaced.exec(again.stderr())!.slice(1, 3)).toEqual([narrower.webhookId, 'it no longer exists on the service']);
      // The last one is kept: the next run takes it over.
      const last = await listenInProcess(t, ['--forward-to', forward, '--events', 'transfer.failed']);
      await last.stop();
      expect([last.webhookId, last.secret]).toEqual([again.webhookId, again.secret]);
    } finally {
      squatter.close();
    }
  });

  it('a kept subscription the service disabled (a day of failed deliveries while no listen ran) is enabled again: the same id and secret', async () => {
    const forward = 'http://127.0.0.1:9/kept-disabled';
    const first = await listenInProcess(t, ['--forward-to', forward]);
    await first.stop();
    // Nobody listens on its port now: every attempt of a sample's delivery fails, for 24 h.
    expect((await t.svc(['sandbox', 'trigger', 'transfer.initiated'])).code).toBe(0);
    for (let h = 0; h < 25; h++) {
      await t.sandbox.advance(60 * 60 * 1000);
      await t.sandbox.webhooksIdle();
    }
    const listed = await t.svcJson<Array<{ webhook_id: string; status?: string }>>(['webhook', 'ls']);
    expect(listed.find((w) => w.webhook_id === first.webhookId)?.status).toBe('disabled');

    const again = await listenInProcess(t, ['--forward-to', forward]);
    await again.stop();
    expect(again.stderr()).toContain(`enabled again subscription ${first.webhookId}, which the service had disabled: the same signing secret`);
    expect([again.webhookId, again.secret]).toEqual([first.webhookId, first.secret]);
    const after = await t.svcJson<Array<{ webhook_id: string; status?: string }>>(['webhook', 'ls']);
    expect(after.map((w) => [w.webhook_id, w.status])).toEqual([[first.webhookId, undefined]]);
  });

  it('--temporary: its own subscription and secret, deleted when it stops; the kept one is left alone', async () => {
    const forward = 'http://127.0.0.1:9/kept-e';
    const kept = await listenInProcess(t, ['--forward-to', forward]);
    const temporary = await listenInProcess(t, ['--forward-to', forward, '--temporary']); // alongside: it needs no slot
    expect(temporary.webhookId).not.toBe(kept.webhookId);
    expect(temporary.secret).not.toBe(kept.secret);
    const end = await temporary.stop();
    expect(end.stderr).toContain(`deleted subscription ${temporary.webhookId}`);
    await kept.stop();
    expect(await subscriptions()).toContain(kept.webhookId);
    expect(await subscriptions()).not.toContain(temporary.webhookId);
  });

  it('a receiver app configured once with the printed secret keeps verifying the deliveries of later runs', async () => {
    const forward = await startReceiver(() => ({ status: 200 }));
    try {
      const a = await listenInProcess(t, ['--forward-to', forward.url]);
      await a.stop();
      const b = await listenInProcess(t, ['--forward-to', forward.url]);
      const ev = (await t.svc(['sandbox', 'trigger', 'transfer.confirmed'])).stdout.trim();
      await forward.waitFor(1);
      const { createHmac } = await import('node:crypto');
      const hit = forward.got[0]!;
      expect(hit.json.event_id).toBe(ev);
      expect(hit.headers['x-service-signature']).toBe(createHmac('sha256', a.secret).update(hit.raw).digest('hex'));
      await b.stop();
    } finally {
      await forward.close();
    }
  });

  it('what the service says of the kept subscription (ids, URLs, events) is shown escaped', async () => {
    const H = 'a\u001b[2Jb\u0007c\u009bd\u202ee';
    const TS = '2026-11-23T12:00:00Z';
    let made = 0;
    const server = await startScriptedServer((req) => {
      if (req.method === 'POST') return { status: 201, body: { webhook_id: `wh_${H}${++made}`, url: 'x', events: ['transfer.confirmed'], secret: `whsec_${H}0123456789abcdef`, created_at: TS } };
      if (req.method === 'GET' && req.url.startsWith('/v1/webhooks')) return { status: 200, body: { webhooks: [{ webhook_id: `wh_${H}1`, url: `http://127.0.0.1:1/${H}`, events: [`transfer.${H}`], created_at: TS }] } };
      return { status: 200, body: {} };
    });
    const configDir = mkdtempSync(join(tmpdir(), 'svc-kept-'));
    try {
      const env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1', SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url };
      const runs: CliResult[] = [];
      for (let i = 0; i < 2; i++) {
        const stop = new AbortController();
        let err = '';
        runs.push(await runCli(['webhook', 'listen'], { env, interrupt: stop.signal, onStderr: (x) => ((err += x), /signing secret/.test(err) && stop.abort('SIGINT')) }));
      }
      expect(runs.map((r) => r.code)).toEqual([130, 130]);
      for (const r of runs) expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
      expect(runs[0]!.stderr).toContain('created subscription wh_a\\x1b[2Jb\\x07c\\x9bd\\u202ee1, kept for the next run');
      expect(runs[1]!.stderr).toContain('replaced the kept subscription wh_a\\x1b[2Jb\\x07c\\x9bd\\u202ee1 (it delivers to http://127.0.0.1:1/a\\x1b[2Jb\\x07c\\x9bd\\u202ee, this run listens on');
      expect(runs[1]!.stderr).toContain('signing secret: whsec_a\\x1b[2Jb');
    } finally {
      await server.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});
