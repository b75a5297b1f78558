// The webhook delivery limits (docs/webhooks.md, "Delivery limits"), through the real engine and
// real receivers on loopback: delivery slots shared fairly between accounts, at most 1,000
// pending deliveries per subscription, and a subscription disabled once every delivery failed
// for 24 h (sandbox clock), enabled again by creating it again.
// The sandbox clock is frozen (it moves only through advance()); waiting is on receivers' events,
// webhooksIdle() or a polled condition, never on time.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/sandbox/accounts.js';
import { openSandbox } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/types.js';
import type { WebhookEngineOptions } from '../../src/sandbox/webhooks/engine.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { dbRecords, request, type ReqOptions } from './helpers.js';

const HOUR = 3_600_000;
const hmac = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex');

async function start(opts: SandboxOptions = {}, webhooks: Partial<WebhookEngineOptions> = {}) {
  const frozen = Date.now();
  const { handle, world } = await openSandbox({ port: 0, ephemeral: true, ...opts }, { realNow: () => frozen, webhooks: { random: () => 0.5, ...webhooks } });
  const keys = new Map(handle.seeded.map((s) => [s.handle, s.apiKey!]));
  const call = (method: string, path: string, o?: ReqOptions) => request(handle.url, method, path, o);
  const as = (h: string) => ({
    get: (path: string) => call('GET', path, { key: keys.get(h)! }),
    post: (path: string, body?: unknown) => call('POST', path, { body, key: keys.get(h)! }),
    subscribe: async (url: string, events: string[] = ['transfer.initiated']) => {
      const res = await call('POST', '/v1/webhooks', { body: { url, events }, key: keys.get(h)! });
      expect(res.status).toBe(201);
      return res.body as { webhook_id: string; secret: string };
    },
    deliveries: async (id: string) => (await call('GET', `/v1/webhooks/${id}/deliveries?limit=1000`, { key: keys.get(h)! })).body.deliveries as Array<Record<string, any>>, // eslint-disable-line @typescript-eslint/no-explicit-any
  });
  /** A sample event for the account through the real engine (POST /_sandbox/trigger). */
  const trigger = async (account: string, event = 'transfer.initiated') => {
    const res = await call('POST', '/_sandbox/trigger', { body: { event, account }, headers: { 'x-sandbox-admin-token': handle.adminToken } });
    expect(res.status).toBe(202);
    return res.body as { event_id: string };
  };
  const settle = async (ms = 0) => {
    await handle.advance(ms);
    await handle.webhooksIdle();
  };
  return { handle, world, as, trigger, settle };
}
type T = Awaited<ReturnType<typeof start>>;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
});
async function sandbox(opts?: SandboxOptions, webhooks?: Partial<WebhookEngineOptions>): Promise<T> {
  const t = await start(opts, webhooks);
  cleanups.push(() => t.handle.close());
  return t;
}
async function receiver(behave?: Receiver['behave'], onReceive?: () => void): Promise<Receiver> {
  const r = await startReceiver(behave, onReceive);
  cleanups.push(r.close);
  return r;
}
/** A loopback URL nobody listens on: every attempt is a refused connection. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}/hook`;
}
/** Polls a condition (no fixed sleep: it returns as soon as the condition holds). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
}

// ---- slots shared between accounts -----------------------------------------------------------------

describe('delivery slots are shared fairly between accounts', () => {
  it("@bob's receivers that accept and never answer do not delay @acme's delivery", async () => {
    // Defaults: 16 shared slots, 4 per receiver. An attempt may hang 10 minutes here, so a slot
    // held by @bob frees only when the test is over: @acme's delivery cannot wait for one.
    const t = await sandbox({}, { timeoutMs: 600_000 });
    let bobArrived = 0;
    const hanging = await Promise.all(Array.from({ length: 20 }, () => receiver(() => 'hang', () => bobArrived++)));
    // Half of them are @bob's own, half his agent's: an agent shares its owner's slots.
    const bob = t.world.store.accountByHandle('@bob')!;
    const { account: agent } = createAccount(t.world.store, { handle: '@bob/bot', type: 'agent', kyc_status: 'verified', confidential_ready: true, parent_account_id: bob.account_id }, t.world.now());
    const agentKey = (await request(t.handle.url, 'POST', '/_sandbox/keys', { body: { account: agent.handle, name: 'bot' }, headers: { 'x-sandbox-admin-token': t.handle.adminToken } })).body.key as string;
    for (const [i, r] of hanging.entries()) {
      if (i % 2 === 0) await t.as('@bob').subscribe(r.url);
      else expect((await request(t.handle.url, 'POST', '/v1/webhooks', { key: agentKey, body: { url: r.url, events: ['transfer.initiated'] } })).status).toBe(201);
    }
    const good = await receiver();
    const acme = await t.as('@acme').subscribe(good.url);

    // An agent's event reaches its own and its owner's subscriptions: 20 deliveries, then 10 more.
    await t.trigger('@bob/bot');
    await t.trigger('@bob');
    await until(() => bobArrived >= 16); // every shared slot is held by an attempt that hangs

    await t.trigger('@acme');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("@acme's delivery did not arrive within 5 s: it waited behind @bob's hanging receivers")), 5_000);
    });
    try {
      await Promise.race([good.waitFor(1), late]);
    } finally {
      clearTimeout(timer);
    }
    // It went out while every attempt of @bob's still hangs: it did not wait for one to end.
    expect(hanging.every((r) => r.answered() === 0)).toBe(true);
    expect(good.got[0]!.headers['x-service-signature']).toBe(hmac(acme.secret, good.got[0]!.raw));
    // @bob (with his agent: one account's slots) holds the 16 shared slots and his own 2; the
    // other 12 of his 30 wait for a slot. @acme's took a slot of its own.
    await until(() => bobArrived >= 18 && t.world.webhooks.busy === 30); // and @acme's attempt has ended
    expect(hanging.reduce((n, r) => n + r.held(), 0)).toBe(18);
    expect(t.world.webhooks.inFlight).toBe(18);
    expect((await t.as('@acme').deliveries(acme.webhook_id)).map((r) => r.state)).toEqual(['succeeded']);
  });
});

// ---- the per-subscription cap ---------------------------------------------------------------------

describe('pending deliveries per subscription', () => {
  it('stop growing at the cap: a new delivery ends the oldest as exhausted (cap 5)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-webhook-limits-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const statePath = join(dir, 'state.db');
    const t = await sandbox({ statePath, ephemeral: false }, { pendingPerWebhook: 5 });
    const sub = await t.as('@alice').subscribe(await deadUrl());
    const events: string[] = [];
    for (let i = 0; i < 8; i++) {
      events.push((await t.trigger('@alice')).event_id);
      await t.settle(0); // its first attempt fails; the retry is due in 5 s, on a clock that stands still
      expect(t.world.webhooks.pending).toBe(Math.min(i + 1, 5));
    }
    // The newest five wait for their retry, in memory and on disk; the oldest three ended.
    expect([...t.world.store.webhooks.deliveriesOf(sub.webhook_id)].map((d) => d.event_id)).toEqual(events.slice(3));
    expect(dbRecords(statePath, 'webhook_deliveries').map((d: { event_id: string }) => d.event_id)).toEqual(events.slice(3));
    const log = await t.as('@alice').deliveries(sub.webhook_id);
    const ended = log.filter((r) => r.state === 'exhausted');
    expect(ended.map((r) => r.event_id).sort()).toEqual(events.slice(0, 3).sort());
    for (const r of ended) {
      expect(r).toMatchObject({ attempt: 1, retry_count: 0, error: 'not attempted again: 5 newer deliveries are pending for this webhook' });
      expect(r).not.toHaveProperty('next_retry_at');
      expect(r).not.toHaveProperty('status_code');
    }
    // An ended delivery is never attempted again: its retry time passes and only the five are tried.
    await t.settle(6_000);
    const retried = (await t.as('@alice').deliveries(sub.webhook_id)).filter((r) => r.attempt === 2);
    expect(retried.map((r) => r.event_id).sort()).toEqual(events.slice(3).sort());
  });

  it('at the default cap, 1,000: the 1,001st delivery ends the first', async () => {
    // Every attempt fails at once (the engine's sender seam: no HTTP, so a thousand take no time);
    // the attempt log keeps 2,000 records here so the ended ones are not pushed out of it.
    const t = await sandbox({}, { send: async () => ({ status: 503, error: 'HTTP 503', durationMs: 0, timedOut: false }), attemptsPerWebhook: 2_000 });
    const alice = t.world.store.accountByHandle('@alice')!;
    // A real sample before the subscription (its transfer exists; nothing is delivered), then that
    // transfer's sample 1,003 times, straight through the engine.
    await t.trigger('@alice');
    const [transfer] = t.world.store.listTransfers(alice.account_id, { limit: 1, offset: 0, after: -1, before: Number.MAX_SAFE_INTEGER }).items;
    const sub = await t.as('@alice').subscribe('https://hooks.example.com/down');
    const ids: string[] = [];
    for (let i = 0; i < 1_003; i++) ids.push(t.world.webhooks.trigger({ type: 'transfer.initiated', transfer: transfer!, at: t.world.now() }).event.event_id);
    await t.settle(0);
    expect(t.world.webhooks.pending).toBe(1_000);
    expect([...t.world.store.webhooks.deliveriesOf(sub.webhook_id)].map((d) => d.event_id)).toEqual(ids.slice(3));
    // The engine's log (the API shows 1,000 records at most, the newest: these three are older).
    const log = t.world.webhooks.deliveries(sub.webhook_id, 2_000);
    const ended = log.filter((r) => r.state === 'exhausted');
    expect(ended.map((r) => r.event_id).sort()).toEqual(ids.slice(0, 3).sort());
    // Ended before their first attempt: attempt 0.
    for (const r of ended) expect(r).toMatchObject({ attempt: 0, retry_count: 0, status_code: null, error: 'not attempted again: 1000 newer deliveries are pending for this webhook' });
    expect(log.filter((r) => r.state === 'retrying')).toHaveLength(1_000);
  });
});

// ---- disabling -------------------------------------------------------------------------------------

describe('a subscription whose every delivery failed for 24 h', () => {
  it('is disabled, gets no new deliveries, keeps its state across a restart, and creating it again enables it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-webhook-limits-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const statePath = join(dir, 'state.db');
    let status = 500;
    const rx = await receiver(() => ({ status }));
    const t = await sandbox({ statePath, ephemeral: false });
    const sub = await t.as('@alice').subscribe(rx.url, ['transfer.initiated', 'transfer.failed']);
    const first = await t.trigger('@alice');
    await t.settle(0);
    let second: { event_id: string } | undefined;
    for (let h = 1; h < 24; h++) {
      await t.settle(HOUR);
      if (h === 12) second = await t.trigger('@alice'); // fails too; its retries run past the 24 h of the first
    }
    await t.settle(0);
    const at23 = await t.as('@alice').get(`/v1/webhooks/${sub.webhook_id}`);
    expect(at23.body).not.toHaveProperty('status'); // active: the spec's shape, nothing added
    expect(t.world.webhooks.pending).toBe(2);

    await t.settle(HOUR); // the first delivery's last attempt, at exactly 24 h, fails
    const res = await t.as('@alice').get(`/v1/webhooks/${sub.webhook_id}`);
    expect(res.body).toEqual({
      webhook_id: sub.webhook_id, url: rx.url, events: ['transfer.initiated', 'transfer.failed'],
      created_at: expect.any(String), status: 'disabled', disabled_at: t.handle.now().toISOString(),
    });
    expect((await t.as('@alice').get('/v1/webhooks')).body.webhooks[0]).toEqual(res.body);
    expect(t.world.webhooks.pending).toBe(0);
    const log = await t.as('@alice').deliveries(sub.webhook_id);
    expect(log.find((r) => r.event_id === first.event_id && r.attempt === 8)).toMatchObject({ state: 'exhausted', status_code: 500 });
    expect(log.find((r) => r.event_id === second!.event_id && r.state === 'exhausted')).toMatchObject({ error: 'not attempted again: webhook disabled (every delivery failed for 24 h)' });
    const tried = rx.got.length;

    // No new deliveries: not for new events, not for a replay, not after a restart.
    await t.trigger('@alice');
    await t.settle(2 * HOUR);
    expect(rx.got).toHaveLength(tried);
    expect(t.world.webhooks.pending).toBe(0);
    const replay = await t.as('@alice').post(`/v1/webhooks/${sub.webhook_id}/replay/${first.event_id}`);
    expect([replay.status, replay.body.error.code]).toEqual([400, 'invalid_request']);
    expect(replay.body.error.message).toContain('is disabled');
    expect(dbRecords(statePath, 'webhook_subscriptions')[0]).toMatchObject({ status: 'disabled' });
    const keys = new Map(t.handle.seeded.map((s) => [s.handle, s.apiKey!]));
    await t.handle.close();
    cleanups.pop();
    const t2 = await start({ statePath, ephemeral: false });
    cleanups.push(() => t2.handle.close());
    const alice = (method: string, path: string, body?: unknown) => request(t2.handle.url, method, path, { key: keys.get('@alice')!, body });
    expect((await alice('GET', `/v1/webhooks/${sub.webhook_id}`)).body.status).toBe('disabled');
    await t2.trigger('@alice');
    await t2.settle(0);
    expect(rx.got).toHaveLength(tried);

    // Another url, or other events, is another subscription; the same url and events (in any
    // order) enable this one: the same id and secret, 200, no secret in the answer.
    const other = await alice('POST', '/v1/webhooks', { url: rx.url, events: ['transfer.initiated'] });
    expect(other.status).toBe(201);
    expect(other.body.webhook_id).not.toBe(sub.webhook_id);
    expect((await alice('DELETE', `/v1/webhooks/${other.body.webhook_id}`)).status).toBe(200);
    const again = await alice('POST', '/v1/webhooks', { url: rx.url, events: ['transfer.failed', 'transfer.initiated'] });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ webhook_id: sub.webhook_id, url: rx.url, events: ['transfer.initiated', 'transfer.failed'], created_at: res.body.created_at });
    expect((await alice('GET', `/v1/webhooks/${sub.webhook_id}`)).body).toEqual(again.body);
    expect(dbRecords(statePath, 'webhook_subscriptions')[0]).not.toHaveProperty('status');

    // It gets new events again, signed with the secret it always had.
    status = 200;
    const next = await t2.trigger('@alice');
    await t2.settle(0);
    expect(rx.got).toHaveLength(tried + 1);
    expect(rx.got.at(-1)!.json.event_id).toBe(next.event_id);
    expect(rx.got.at(-1)!.headers['x-service-signature']).toBe(hmac(sub.secret, rx.got.at(-1)!.raw));
    // And a missed event, kept while it was disabled, can be replayed now.
    expect((await alice('POST', `/v1/webhooks/${sub.webhook_id}/replay/${first.event_id}`)).status).toBe(202);
  });

  it('is not disabled when one delivery succeeded within the 24 h', async () => {
    let ok = false;
    const rx = await receiver(() => ({ status: ok ? 200 : 500 }));
    const t = await sandbox();
    const sub = await t.as('@alice').subscribe(rx.url);
    await t.trigger('@alice');
    await t.settle(0);
    for (let h = 1; h <= 25; h++) {
      if (h === 12) {
        ok = true;
        await t.trigger('@alice');
        await t.settle(0);
        ok = false;
      }
      await t.settle(HOUR);
    }
    const log = await t.as('@alice').deliveries(sub.webhook_id);
    expect(log.filter((r) => r.state === 'succeeded')).toHaveLength(1);
    expect(log.find((r) => r.attempt === 8)).toMatchObject({ state: 'exhausted' }); // the first delivery ran its 24 h and ended
    expect((await t.as('@alice').get(`/v1/webhooks/${sub.webhook_id}`)).body).not.toHaveProperty('status');
    // It still gets new events.
    await t.trigger('@alice');
    await t.settle(0);
    expect(rx.got.at(-1)!.headers['x-service-delivery-attempt']).toBe('1');
    expect(t.world.webhooks.pending).toBe(1);
  });
});
