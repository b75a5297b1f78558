// Every way `svc webhook listen --temporary` ends deletes the subscription it made, so no one who
// binds the port next receives this account's events: an error inside the receiver, the
// forwarding target failing (it goes on), the listening socket closed under it, and a Ctrl-C that
// comes while it is still subscribing. (Ctrl-C, SIGINT and SIGTERM after hostile traffic:
// listen-hostile.test.ts; the kept subscription of a listen without --temporary, on the same
// ways out: listen-kept.test.ts.)
import { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { listenInProcess } from '../../helpers/listen.js';
import { spawnSvc, type LiveRun } from '../../helpers/run.js';
import { startScriptedServer } from '../../helpers/scripted-server.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

let t: TestSandbox;

beforeAll(async () => {
  t = await startTestSandbox();
});
afterAll(() => t?.close());

const subscriptions = async () => (await t.svcJson<Array<{ webhook_id: string }>>(['webhook', 'ls'])).map((w) => w.webhook_id);
async function trigger(): Promise<string> {
  const r = await t.svc(['sandbox', 'trigger', 'transfer.confirmed']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('webhook listen --temporary deletes its subscription on every way out', () => {
  it('an error inside the receiver (printing a delivery fails): the subscription deleted, exit 70 (internal_error)', async () => {
    let fail = true;
    const l = await listenInProcess(t, ['--temporary'], {
      onStdout: () => {
        if (fail) throw new Error('stdout is gone');
      },
    });
    expect(await subscriptions()).toEqual([l.webhookId]);
    await trigger();
    const end = await l.done;
    fail = false;
    expect(end.code).toBe(70);
    expect(end.stderr).toContain(`deleted subscription ${l.webhookId}`);
    expect(end.stderr).toMatch(/\{"error":\{"code":"internal_error","message":"unexpected failure: stdout is gone"/);
    expect(await subscriptions()).toEqual([]);
  });

  it('the forwarding target failing (reset, then hanging) is a line, not an end; Ctrl-C during a hung forward still deletes it', async () => {
    const target = await startReceiver((n) => (n === 1 ? 'reset' : n === 2 ? { status: 204 } : 'hang'));
    try {
      const l = await listenInProcess(t, ['--temporary', '--forward-to', target.url]);
      const first = await trigger();
      expect(await l.waitLine((x) => x.event_id === first)).toMatchObject({ valid: true, forward_error: 'connection reset' });
      const second = await trigger();
      expect(await l.waitLine((x) => x.event_id === second)).toMatchObject({ valid: true, forwarded_status: 204 });
      const third = await trigger();
      await target.waitFor(3); // the third forward is held open by the target
      const end = await l.stop();
      expect(end.code).toBe(130);
      expect(end.stderr).toContain(`deleted subscription ${l.webhookId}`);
      expect(await subscriptions()).toEqual([]);
      // The held forward was abandoned when listen stopped (not left to time out and print after the end).
      await target.released();
      expect(l.lines.filter((x) => x.event_id === third)).toEqual([]);
      expect(l.stdout()).not.toMatch(/no answer within/);
    } finally {
      await target.close();
    }
  });

  it('the listening socket closed under it: the subscription deleted, exit 1 (listener_closed)', async () => {
    const listening = vi.spyOn(Server.prototype, 'listen');
    const l = await listenInProcess(t, ['--temporary']).catch((err: unknown) => {
      listening.mockRestore();
      throw err;
    });
    const servers = [...listening.mock.contexts] as Server[];
    listening.mockRestore(); // (restoring also forgets the calls)
    const port = Number(new URL(l.url).port);
    const server = servers.find((s) => (s.address() as AddressInfo | null)?.port === port);
    expect(server).toBeDefined();
    expect(await subscriptions()).toEqual([l.webhookId]);
    server!.close();
    const end = await l.done;
    expect(end.code).toBe(1);
    expect(end.stderr).toContain(`deleted subscription ${l.webhookId}`);
    expect(end.stderr).toMatch(/"code":"listener_closed","message":"stopped: the listening socket was closed under it"/);
    expect(await subscriptions()).toEqual([]);
  });

  it('spawned: SIGINT while the subscription is being created still deletes it', async () => {
    // Between listen and the sandbox, a relay that sends SIGINT the moment the subscription is
    // asked for, and only then passes the request on: the answer comes back after the signal.
    let run: LiveRun | undefined;
    const relay = await startScriptedServer(async (req) => {
      if (req.method === 'POST' && req.url === '/v1/webhooks') run?.child.kill('SIGINT');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
      const r = await fetch(`${t.url}${req.url}`, { method: req.method, headers, ...(req.body ? { body: req.body } : {}) });
      return { status: r.status, headers: { 'content-type': 'application/json', date: r.headers.get('date') ?? '' }, body: await r.text() };
    });
    try {
      run = spawnSvc(['webhook', 'listen', '--temporary'], { ...t.env, SVC_BASE_URL: relay.url });
      const end = await run.exited;
      expect(end.code).toBe(130);
      expect(end.stderr).toMatch(/deleted subscription wh_\w+/);
      expect(await subscriptions()).toEqual([]);
    } finally {
      if (run && !run.done()) run.child.kill('SIGKILL');
      await relay.close();
    }
  });
});
