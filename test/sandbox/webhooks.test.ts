// The sandbox's webhook engine: subscriptions API, fan-out and payloads, signatures, the retry
// schedule on the sandbox clock, cancellation on delete, misbehaving receivers, restart.
// The sandbox clock is frozen (it moves only through advance()); tests wait for attempts with
// webhooksIdle(), never with sleeps.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSandbox } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/types.js';
import { createAccount } from '../../src/sandbox/accounts.js';
import type { HeldTransaction } from '../../src/sandbox/records.js';
import type { WebhookEngineOptions } from '../../src/sandbox/webhooks/engine.js';
import { MAX_ATTEMPTS, nextAttempt, RETRY_DELAYS_MS, RETRY_WINDOW_MS, retryAfterMs } from '../../src/sandbox/webhooks/schedule.js';
import { startReceiver, type Received, type Receiver } from '../helpers/webhook-receiver.js';
import { dbBytes, dbRecords, nullPaths, request, type ReqOptions } from './helpers.js';

const HOUR = 3_600_000;
const CANARY = '7341.902817';
const hmac = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex');

// ---- a scriptable receiver (test/helpers/webhook-receiver.ts) ---------------------------------------

/** Every delivery any receiver got in the current test: checked for nulls after each test. */
const everyDelivery: Received[] = [];

// ---- a sandbox with a frozen clock and webhook knobs ------------------------------------------------

let random = 0.5;
async function start(opts: SandboxOptions = {}, webhooks: Partial<WebhookEngineOptions> = {}) {
  const frozen = Date.now();
  const { handle, world } = await openSandbox(
    { port: 0, ephemeral: true, blockTimeMs: 1500, ...opts },
    { realNow: () => frozen, webhooks: { random: () => random, ...webhooks } },
  );
  const keys = new Map(handle.seeded.map((s) => [s.handle, s.apiKey!]));
  const keyOf = (h: string) => keys.get(h) ?? (() => { throw new Error(`no key for ${h}`); })();
  const call = (method: string, path: string, o?: ReqOptions) => request(handle.url, method, path, o);
  const as = (h: string) => ({
    get: (path: string) => call('GET', path, { key: keyOf(h) }),
    post: (path: string, body?: unknown, o: ReqOptions = {}) => call('POST', path, { ...o, body, key: keyOf(h) }),
    del: (path: string) => call('DELETE', path, { key: keyOf(h) }),
    send: (body: Record<string, unknown>) => call('POST', '/v1/transfers', { body, key: keyOf(h) }),
    subscribe: async (url: string, events: string[] = ['transfer.initiated', 'transfer.confirmed', 'transfer.failed']) => {
      const res = await call('POST', '/v1/webhooks', { body: { url, events }, key: keyOf(h) });
      expect(res.status).toBe(201);
      return res.body as { webhook_id: string; secret: string; url: string; events: string[]; created_at: string };
    },
    deliveries: async (id: string) => {
      const res = await call('GET', `/v1/webhooks/${id}/deliveries`, { key: keyOf(h) });
      expect(res.status).toBe(200);
      return res.body.deliveries as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    },
  });
  const admin = (method: string, path: string, body?: unknown) =>
    call(method, path, { body, headers: { 'x-sandbox-admin-token': handle.adminToken } });
  const settle = async (ms = 0) => {
    await handle.advance(ms);
    await handle.webhooksIdle();
  };
  return { handle, world, keyOf, call, as, admin, settle, close: () => handle.close() };
}
type T = Awaited<ReturnType<typeof start>>;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  random = 0.5;
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
  // No event body ever carries a null: an unset field is omitted.
  const nulls = everyDelivery.splice(0).flatMap((r) => nullPaths(JSON.parse(r.raw.toString('utf8'))).map((p) => `${String(r.json.event)} ${p}`));
  expect(nulls).toEqual([]);
});
async function sandbox(opts?: SandboxOptions, webhooks?: Partial<WebhookEngineOptions>): Promise<T> {
  const t = await start(opts, webhooks);
  cleanups.push(t.close);
  return t;
}
async function receiver(behave?: Receiver['behave']): Promise<Receiver> {
  const r = await startReceiver(behave, (d) => everyDelivery.push(d));
  cleanups.push(r.close);
  return r;
}

// ---- the schedule, as a pure function ----------------------------------------------------------------

describe('retry schedule', () => {
  const base = { firstAttemptAt: 0, wasFinal: false, timedOut: false };

  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h within ±20 %, counted from the failure', () => {
    for (let i = 0; i < RETRY_DELAYS_MS.length; i++) {
      const d = RETRY_DELAYS_MS[i]!;
      const failedAt = 1_000 + i * HOUR;
      const lo = nextAttempt({ ...base, attempt: i + 1, failedAt, random: () => 0 })!;
      const hi = nextAttempt({ ...base, attempt: i + 1, failedAt, random: () => 0.999999 })!;
      expect(lo.at - failedAt).toBe(Math.round(d * 0.8));
      expect(hi.at - failedAt).toBeLessThanOrEqual(Math.round(d * 1.2));
      expect(hi.at - failedAt).toBeGreaterThan(Math.round(d * 1.19));
      expect(lo.final || hi.final).toBe(false);
    }
    expect(RETRY_DELAYS_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000]);
  });

  it('makes the last attempt at exactly 24 h after the first, then none', () => {
    const seventh = nextAttempt({ ...base, attempt: 7, failedAt: 21 * HOUR, random: () => 0.5 })!;
    expect(seventh).toEqual({ at: RETRY_WINDOW_MS, final: true });
    expect(nextAttempt({ ...base, attempt: 8, failedAt: RETRY_WINDOW_MS, wasFinal: true, random: () => 0.5 })).toBeNull();
    expect(MAX_ATTEMPTS).toBe(8);
  });

  it('never schedules past the 24 h window: a long wait becomes the last attempt at 24 h', () => {
    const r = nextAttempt({ ...base, attempt: 5, failedAt: 20 * HOUR, random: () => 0.999999 })!; // 20 h + 6 h > 24 h
    expect(r).toEqual({ at: RETRY_WINDOW_MS, final: true });
    const ra = nextAttempt({ ...base, attempt: 1, failedAt: 1000, retryAfterMs: 48 * HOUR, random: () => 0.5 })!;
    expect(ra).toEqual({ at: RETRY_WINDOW_MS, final: true });
  });

  it('waits at least 60 s after a timeout or a Retry-After, and at least what Retry-After asks', () => {
    expect(nextAttempt({ ...base, attempt: 1, failedAt: 0, timedOut: true, random: () => 0.5 })!.at).toBe(60_000);
    expect(nextAttempt({ ...base, attempt: 1, failedAt: 0, retryAfterMs: 1_000, random: () => 0.5 })!.at).toBe(60_000);
    expect(nextAttempt({ ...base, attempt: 1, failedAt: 0, retryAfterMs: 600_000, random: () => 0.5 })!.at).toBe(600_000);
    expect(nextAttempt({ ...base, attempt: 3, failedAt: 0, timedOut: true, random: () => 0.5 })!.at).toBe(1_800_000); // already longer
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('120', 0)).toBe(120_000);
    expect(retryAfterMs(new Date(90_000).toUTCString(), 0)).toBe(90_000);
    expect(retryAfterMs('soon', 0)).toBeUndefined();
    expect(retryAfterMs(undefined, 0)).toBeUndefined();
  });
});

// ---- the subscriptions API ------------------------------------------------------------------------

describe('webhook subscriptions API', () => {
  let t: T;
  beforeEach(async () => {
    t = await sandbox();
  });

  it('creates a subscription: 201 with the secret once; list and get never show it', async () => {
    const res = await t.as('@alice').post('/v1/webhooks', { url: 'https://hooks.example.com/svc', events: ['transfer.confirmed', 'transfer.confirmed', 'agent.policy.updated'] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'events', 'secret', 'url', 'webhook_id']);
    expect(res.body.webhook_id).toMatch(/^wh_[A-Za-z0-9]{20}$/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(res.body.events).toEqual(['transfer.confirmed', 'agent.policy.updated']);
    const list = await t.as('@alice').get('/v1/webhooks');
    expect(list.body).toEqual({ webhooks: [{ webhook_id: res.body.webhook_id, url: 'https://hooks.example.com/svc', events: res.body.events, created_at: res.body.created_at }] });
    expect(list.text).not.toContain(res.body.secret);
    const one = await t.as('@alice').get(`/v1/webhooks/${res.body.webhook_id}`);
    expect(one.body).toEqual(list.body.webhooks[0]);
    // Other accounts see nothing.
    expect((await t.as('@acme').get('/v1/webhooks')).body).toEqual({ webhooks: [] });
  });

  it('an Idempotency-Key replay of a create answers the first answer whole, the secret included', async () => {
    const body = { url: 'http://127.0.0.1:9/x', events: ['transfer.confirmed'] };
    const first = await t.as('@alice').post('/v1/webhooks', body, { headers: { 'idempotency-key': 'k1' } });
    const again = await t.as('@alice').post('/v1/webhooks', body, { headers: { 'idempotency-key': 'k1' } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.webhook_id).toBe(first.body.webhook_id);
    expect(again.body.secret).toBe(first.body.secret);
    expect(again.text).toBe(first.text);
    expect((await t.as('@alice').get('/v1/webhooks')).body.webhooks).toHaveLength(1);
  });

  it.each([
    [{ events: ['transfer.confirmed'] }, 'url is required'],
    [{ url: 42, events: ['transfer.confirmed'] }, 'url must be a string'],
    [{ url: 'not a url', events: ['transfer.confirmed'] }, 'url must be an absolute URL'],
    [{ url: 'http://hooks.example.com/x', events: ['transfer.confirmed'] }, 'url must use https (plain http is accepted only for a loopback host'],
    [{ url: 'ftp://127.0.0.1/x', events: ['transfer.confirmed'] }, 'url must use https (got ftp)'],
    [{ url: 'https://u:p@hooks.example.com/x', events: ['transfer.confirmed'] }, 'url must not carry credentials'],
    [{ url: 'https://hooks.example.com/x' }, 'events is required'],
    [{ url: 'https://hooks.example.com/x', events: 'transfer.confirmed' }, 'events must be an array'],
    [{ url: 'https://hooks.example.com/x', events: [] }, 'events must name at least one event type'],
    [{ url: 'https://hooks.example.com/x', events: ['transfer.confirmed', 'transfer.settled'] }, 'events[1] must be one of transfer.initiated,'],
    [{ url: 'https://hooks.example.com/x', events: [7] }, 'events[0] must be one of'],
  ])('400 invalid_request naming the field: %j', async (body, message) => {
    const res = await t.as('@alice').post('/v1/webhooks', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toContain(message);
  });

  it('accepts http to loopback hosts (127.0.0.0/8, localhost, [::1])', async () => {
    for (const url of ['http://127.0.0.1:3000/h', 'http://127.1.2.3/h', 'http://localhost:8080/', 'http://[::1]:9000/x']) {
      expect((await t.as('@alice').post('/v1/webhooks', { url, events: ['transfer.failed'] })).status).toBe(201);
    }
  });

  it("another account's subscription is 404 webhook_not_found on every route; unknown events 404 event_not_found", async () => {
    const sub = await t.as('@alice').subscribe('http://127.0.0.1:9/x');
    for (const [method, path] of [
      ['GET', `/v1/webhooks/${sub.webhook_id}`],
      ['DELETE', `/v1/webhooks/${sub.webhook_id}`],
      ['GET', `/v1/webhooks/${sub.webhook_id}/deliveries`],
      ['POST', `/v1/webhooks/${sub.webhook_id}/replay/evt_x`],
      ['GET', '/v1/webhooks/wh_nope/deliveries'],
    ] as const) {
      const res = await t.call(method, path, { key: t.keyOf('@acme') });
      expect({ path, status: res.status, code: res.body.error.code }).toEqual({ path, status: 404, code: 'webhook_not_found' });
    }
    expect((await t.as('@alice').get(`/v1/webhooks/${sub.webhook_id}`)).status).toBe(200); // still there
    const r = await t.as('@alice').post(`/v1/webhooks/${sub.webhook_id}/replay/evt_doesnotexist`);
    expect([r.status, r.body.error.code]).toEqual([404, 'event_not_found']);
    expect((await t.call('GET', '/v1/webhooks')).status).toBe(401);
  });

  it('DELETE answers {webhook_id, deleted: true}, then the id is gone', async () => {
    const sub = await t.as('@alice').subscribe('http://127.0.0.1:9/x');
    const res = await t.as('@alice').del(`/v1/webhooks/${sub.webhook_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ webhook_id: sub.webhook_id, deleted: true });
    expect((await t.as('@alice').del(`/v1/webhooks/${sub.webhook_id}`)).status).toBe(404);
    expect((await t.as('@alice').get('/v1/webhooks')).body.webhooks).toEqual([]);
  });
});

// ---- fan-out, payloads, signatures ----------------------------------------------------------------

describe('events and deliveries', () => {
  it('each side of a transfer gets its own signed event; exact fields; no amount or memo anywhere', async () => {
    const t = await sandbox();
    const rx = await receiver();
    const alice = await t.as('@alice').subscribe(rx.url);
    const acme = await t.as('@acme').subscribe(rx.url, ['transfer.confirmed']);
    expect((await t.admin('POST', '/_sandbox/fund', { handle: '@alice', amount: '10000' })).status).toBe(200);
    const sent = await t.as('@alice').send({ to: '@acme', amount: CANARY, memo: 'secret memo 7341' });
    expect(sent.status).toBe(201);
    await t.settle(0);
    expect(rx.got).toHaveLength(1); // alice: initiated; acme did not ask for it
    await t.settle(1500);
    expect(rx.got).toHaveLength(3);

    const bySecret = (r: Received) => (hmac(alice.secret, r.raw) === r.headers['x-service-signature'] ? 'alice' : hmac(acme.secret, r.raw) === r.headers['x-service-signature'] ? 'acme' : 'bad');
    expect(rx.got.map((r) => [bySecret(r), r.json.event, r.json.direction])).toEqual(
      expect.arrayContaining([
        ['alice', 'transfer.initiated', 'sent'],
        ['alice', 'transfer.confirmed', 'sent'],
        ['acme', 'transfer.confirmed', 'received'],
      ]),
    );
    const received = rx.got.find((r) => r.json.direction === 'received')!;
    const sentSide = rx.got.find((r) => r.json.direction === 'sent' && r.json.event === 'transfer.confirmed')!;
    const keys = ['account', 'asset', 'confidential', 'counterparty', 'direction', 'event', 'event_id', 'occurred_at', 'timestamp', 'transfer_id', 'tx_hash'];
    expect(Object.keys(sentSide.json).sort()).toEqual(keys);
    expect(Object.keys(received.json).sort()).toEqual(keys);
    expect(sentSide.json).toMatchObject({ account: '@alice', counterparty: '@acme', asset: 'USDG', confidential: true, transfer_id: sent.body.transfer_id, tx_hash: sent.body.tx_hash });
    expect(received.json).toMatchObject({ account: '@acme', counterparty: '@alice', transfer_id: sent.body.transfer_id });
    expect(received.json.event_id).not.toBe(sentSide.json.event_id);
    expect(sentSide.json.event_id).toMatch(/^evt_[A-Za-z0-9]{24}$/);
    // timestamp = when signed (sandbox clock), occurred_at = when it happened.
    expect(sentSide.json.occurred_at).toBe(new Date(Date.parse(sent.body.created_at) + 1500).toISOString());
    for (const r of rx.got) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-service-event-id']).toBe(r.json.event_id);
      expect(r.headers['x-service-delivery-attempt']).toBe('1');
      expect(r.headers['user-agent']).toMatch(/^svc-sandbox-webhooks\//);
      const text = r.raw.toString('utf8');
      expect(text).not.toMatch(/7341\.902817|7341902817|memo|amount/);
    }
  });

  it('an agent’s events reach its own and its owner’s subscriptions; policy and held-transaction payloads', async () => {
    const t = await sandbox();
    const rx = await receiver();
    const owner = t.world.store.accountByHandle('@alice')!;
    const { account: agent } = createAccount(t.world.store, { handle: '@alice/bot', type: 'agent', kyc_status: 'verified', confidential_ready: true, parent_account_id: owner.account_id }, t.world.now());
    const all = ['transfer.initiated', 'agent.transaction.pending_approval', 'agent.transaction.approved', 'agent.transaction.rejected', 'agent.policy.updated'];
    const sub = await t.as('@alice').subscribe(rx.url, all);
    const other = await t.as('@acme').subscribe(rx.url, all);

    // A transfer sent by the agent.
    t.world.store.credit(agent.account_id, 'USDG', 5_000_000n);
    const tr = t.world.chain.submit({ from: agent, to: '0x1111111111111111111111111111111111111111', toAccount: undefined, toAddress: '0x1111111111111111111111111111111111111111', asset: 'USDG', units: 1_000_000n, confidential: true, memo: undefined, now: t.world.now() })!;
    const now = t.world.now();
    const held: HeldTransaction = {
      transaction_id: 'atx_test1', agent_account_id: agent.account_id, owner_account_id: owner.account_id, agent: agent.handle, to: '@acme',
      asset: 'USDG', confidential: true, requested_at: now, expires_at: now + 900_000, status: 'pending_approval', decided_at: null, transfer_id: null,
      amount_sealed: 'x', memo_sealed: null,
    };
    t.world.store.emit({ type: 'agent.transaction.pending_approval', held, at: now });
    t.world.store.emit({ type: 'agent.transaction.approved', held: { ...held, status: 'approved', transfer_id: 'tr_fromhold' }, at: now });
    t.world.store.emit({ type: 'agent.policy.updated', agent, policy_id: 'pol_1', at: now });
    await t.settle(0);

    expect(rx.got.every((r) => hmac(sub.secret, r.raw) === r.headers['x-service-signature'])).toBe(true); // none went to @acme
    void other;
    const byEvent = Object.fromEntries(rx.got.map((r) => [r.json.event, r.json]));
    expect(byEvent['transfer.initiated']).toMatchObject({ account: '@alice/bot', direction: 'sent', transfer_id: tr.transfer_id });
    expect(Object.keys(byEvent['agent.transaction.pending_approval']!).sort()).toEqual(['agent', 'approvals', 'approvals_required', 'event', 'event_id', 'expires_at', 'occurred_at', 'requested_at', 'timestamp', 'to', 'transaction_id']);
    // A record held before quorums existed reads as needing one approval, none yet.
    expect(byEvent['agent.transaction.pending_approval']).toMatchObject({ transaction_id: 'atx_test1', agent: '@alice/bot', to: '@acme', expires_at: new Date(now + 900_000).toISOString(), approvals_required: 1, approvals: [] });
    expect(byEvent['agent.transaction.approved']).toMatchObject({ transfer_id: 'tr_fromhold' });
    expect(Object.keys(byEvent['agent.policy.updated']!).sort()).toEqual(['agent', 'event', 'event_id', 'occurred_at', 'policy_id', 'timestamp']);
    expect(byEvent['agent.policy.updated']).toMatchObject({ agent: '@alice/bot', policy_id: 'pol_1' });
  });

  it('the agents API end to end: hold, approve, policy change reach the owner’s subscription', async () => {
    const t = await sandbox();
    const rx = await receiver();
    const sub = await t.as('@alice').subscribe(rx.url, ['transfer.initiated', 'agent.transaction.pending_approval', 'agent.transaction.approved', 'agent.policy.updated']);
    const created = await t.as('@alice').post('/v1/accounts/me/agents', { name: 'hookbot', spend_policy: { hitl_threshold_usdc: 10 } });
    expect(created.status, created.text).toBe(201);
    expect((await t.admin('POST', '/_sandbox/fund', { handle: created.body.handle, amount: '100' })).status).toBe(200);
    const key = await t.admin('POST', '/_sandbox/keys', { account: created.body.handle, name: 'agent' });
    const held = await t.call('POST', '/v1/transfers', { key: key.body.key, body: { to: '@acme', amount: '25.604718' } });
    expect(held.status, held.text).toBe(202);
    const approved = await t.as('@alice').post(`/v1/agents/transactions/${held.body.transaction_id}/approve`);
    expect(approved.status, approved.text).toBe(200);
    const patched = await t.call('PATCH', `/v1/agents/${created.body.account_id}/spend-policy`, { key: t.keyOf('@alice'), body: { hitl_threshold_usdc: 50 } });
    expect(patched.status, patched.text).toBe(200);
    await t.handle.webhooksIdle();
    expect(rx.got.every((r) => hmac(sub.secret, r.raw) === r.headers['x-service-signature'])).toBe(true);
    const byEvent = Object.fromEntries(rx.got.map((r) => [r.json.event, r.json]));
    expect(Object.keys(byEvent).sort()).toEqual(['agent.policy.updated', 'agent.transaction.approved', 'agent.transaction.pending_approval', 'transfer.initiated']);
    expect(byEvent['agent.transaction.pending_approval']).toMatchObject({ transaction_id: held.body.transaction_id, agent: created.body.handle, to: '@acme', expires_at: held.body.expires_at });
    expect(byEvent['agent.transaction.approved']).toMatchObject({ transaction_id: held.body.transaction_id, transfer_id: approved.body.transfer_id });
    expect(byEvent['transfer.initiated']).toMatchObject({ account: created.body.handle, direction: 'sent', counterparty: '@acme', transfer_id: approved.body.transfer_id });
    expect(byEvent['agent.policy.updated']).toMatchObject({ agent: created.body.handle, policy_id: created.body.spend_policy_id });
    for (const r of rx.got) expect(r.raw.toString('utf8')).not.toMatch(/"amount|25\.604718|25604718/);
  });

  it('the request path never waits for a delivery: a hanging receiver does not slow a transfer', async () => {
    // Attempts may hang for 10 minutes: had a send or an advance waited for one, it could not
    // have returned while the attempts are still open (and the test would time out).
    const t = await sandbox({}, { timeoutMs: 600_000 });
    const rx = await receiver(() => 'hang');
    await t.as('@alice').subscribe(rx.url);
    for (let i = 0; i < 3; i++) expect((await t.as('@alice').send({ to: '@acme', amount: '1' })).status).toBe(201);
    await rx.waitFor(3);
    expect(rx.held()).toBe(3);
    // Advancing the clock does not wait for HTTP either: the three are still open after it.
    await t.handle.advance(1500);
    expect(rx.held()).toBe(3);
    expect(t.world.webhooks.busy).toBeGreaterThanOrEqual(3);
  });

  it('replay sends the stored event again as a new delivery; only events for the account', async () => {
    const t = await sandbox();
    const rx = await receiver();
    const sub = await t.as('@alice').subscribe(rx.url, ['transfer.initiated']);
    await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.settle(0);
    const eventId = rx.got[0]!.json.event_id as string;
    await t.settle(10 * 60_000);
    const res = await t.as('@alice').post(`/v1/webhooks/${sub.webhook_id}/replay/${eventId}`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ webhook_id: sub.webhook_id, event_id: eventId, event: 'transfer.initiated', replay: true, state: 'queued' });
    await t.handle.webhooksIdle();
    expect(rx.got).toHaveLength(2);
    const again = rx.got[1]!;
    expect(again.json.event_id).toBe(eventId);
    expect(again.json.occurred_at).toBe(rx.got[0]!.json.occurred_at);
    expect(Date.parse(again.json.timestamp as string) - Date.parse(rx.got[0]!.json.timestamp as string)).toBe(10 * 60_000); // signed now
    expect(again.headers['x-service-signature']).toBe(hmac(sub.secret, again.raw));
    const log = await t.as('@alice').deliveries(sub.webhook_id);
    expect(log[0]).toMatchObject({ delivery_id: res.body.delivery_id, attempt: 1, replay: true, state: 'succeeded' });
    expect(log[1]!.delivery_id).not.toBe(res.body.delivery_id);

    // @acme's event (the received side) is not @alice's to replay, and vice versa.
    const acmeSub = await t.as('@acme').subscribe(rx.url);
    const cross = await t.as('@acme').post(`/v1/webhooks/${acmeSub.webhook_id}/replay/${eventId}`);
    expect([cross.status, cross.body.error.code]).toEqual([404, 'event_not_found']);
  });

  it('POST /_sandbox/trigger fires a sample event of each type through the engine', async () => {
    const t = await sandbox();
    const rx = await receiver();
    const sub = await t.as('@alice').subscribe(rx.url, ['transfer.confirmed', 'agent.transaction.approved', 'agent.policy.updated']);
    const one = await t.admin('POST', '/_sandbox/trigger', { event: 'transfer.confirmed' });
    expect(one.status).toBe(202);
    expect(one.body).toMatchObject({ event: 'transfer.confirmed', account: '@alice', sample: true, deliveries: [{ webhook_id: sub.webhook_id }] });
    expect((await t.admin('POST', '/_sandbox/trigger', { event: 'agent.transaction.approved', account: '@alice' })).status).toBe(202);
    expect((await t.admin('POST', '/_sandbox/trigger', { event: 'agent.policy.updated' })).status).toBe(202);
    const none = await t.admin('POST', '/_sandbox/trigger', { event: 'transfer.failed', account: '@acme' });
    expect(none.body.deliveries).toEqual([]);
    await t.handle.webhooksIdle();
    expect(rx.got.map((r) => r.json.event)).toEqual(['transfer.confirmed', 'agent.transaction.approved', 'agent.policy.updated']);
    expect(rx.got.every((r) => r.json.sample === true && hmac(sub.secret, r.raw) === r.headers['x-service-signature'])).toBe(true);
    expect(rx.got[0]!.json).toMatchObject({ event_id: one.body.event_id, account: '@alice', direction: 'sent' });
    // Sample ids have the form of real ones (made by the same generators), and differ each time.
    expect(rx.got[0]!.json).toMatchObject({ transfer_id: expect.stringMatching(/^tr_[A-Za-z0-9]{24}$/), tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(rx.got[1]!.json).toMatchObject({
      agent: '@alice/sample-agent',
      transaction_id: expect.stringMatching(/^txn_[A-Za-z0-9]{24}$/),
      transfer_id: expect.stringMatching(/^tr_[A-Za-z0-9]{24}$/),
    });
    expect(rx.got[2]!.json).toMatchObject({ policy_id: expect.stringMatching(/^pol_[A-Za-z0-9]{20}$/) });
    expect(rx.got[1]!.json.transfer_id).not.toBe(rx.got[0]!.json.transfer_id);
    for (const r of rx.got) expect(r.raw.toString('utf8')).not.toMatch(/sample0|null/);
    // A sample is stored: it can be replayed.
    expect((await t.as('@alice').post(`/v1/webhooks/${sub.webhook_id}/replay/${one.body.event_id}`)).status).toBe(202);
    for (const [body, code, status] of [
      [{ event: 'transfer.settled' }, 'invalid_request', 400],
      [{}, 'invalid_request', 400],
      [{ event: 'transfer.failed', account: '@nobody' }, 'account_not_found', 404],
    ] as const) {
      const r = await t.admin('POST', '/_sandbox/trigger', body);
      expect([r.status, r.body.error.code]).toEqual([status, code]);
    }
    expect((await t.call('POST', '/_sandbox/trigger', { body: { event: 'transfer.failed' }, key: t.keyOf('@alice') })).status).toBe(401);
  });
});

// ---- retries on the sandbox clock ---------------------------------------------------------------

describe('retries', () => {
  it('follows the schedule with jitter, makes the last attempt at exactly 24 h, then is exhausted', async () => {
    const t = await sandbox();
    const rx = await receiver(() => ({ status: 500 }));
    const sub = await t.as('@alice').subscribe(rx.url, ['transfer.initiated']);
    const jitters = [0, 0.999999, 0.25, 0.75, 0, 0.999999];
    random = jitters[0]!;
    await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.settle(0);
    expect(rx.got).toHaveLength(1);
    let log = await t.as('@alice').deliveries(sub.webhook_id);
    const first = Date.parse(log[0]!.attempted_at);
    for (let i = 0; i < RETRY_DELAYS_MS.length; i++) {
      const last = log[0]!;
      expect(last).toMatchObject({ attempt: i + 1, retry_count: i, status_code: 500, error: 'HTTP 500', state: 'retrying' });
      const wait = Date.parse(last.next_retry_at) - Date.parse(last.attempted_at);
      const d = RETRY_DELAYS_MS[i]!;
      expect(wait).toBeGreaterThanOrEqual(d * 0.8);
      expect(wait).toBeLessThanOrEqual(d * 1.2);
      random = jitters[(i + 1) % jitters.length]!;
      await t.settle(wait - 1); // not yet
      expect(rx.got).toHaveLength(i + 1);
      await t.settle(1);
      expect(rx.got).toHaveLength(i + 2);
      expect(rx.got[i + 1]!.headers['x-service-delivery-attempt']).toBe(String(i + 2));
      expect(rx.got[i + 1]!.json.event_id).toBe(rx.got[0]!.json.event_id);
      log = await t.as('@alice').deliveries(sub.webhook_id);
    }
    const seventh = log[0]!;
    expect(seventh).toMatchObject({ attempt: 7, state: 'retrying' });
    expect(Date.parse(seventh.next_retry_at)).toBe(first + RETRY_WINDOW_MS);
    await t.settle(first + RETRY_WINDOW_MS - t.world.now());
    expect(rx.got).toHaveLength(8);
    log = await t.as('@alice').deliveries(sub.webhook_id);
    expect(log).toHaveLength(8);
    expect(log[0]).toMatchObject({ attempt: 8, retry_count: 7, state: 'exhausted' });
    expect(log[0]).not.toHaveProperty('next_retry_at'); // no retry: omitted, never null
    expect(Date.parse(log[0]!.attempted_at)).toBe(first + RETRY_WINDOW_MS);
    expect(log.map((r) => r.attempt)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]); // newest first
    for (const r of rx.got) expect(r.headers['x-service-signature']).toBe(hmac(sub.secret, r.raw)); // each attempt re-signed
    await t.settle(30 * 24 * HOUR);
    expect(rx.got).toHaveLength(8);
    expect(t.world.webhooks.pending).toBe(0);
  });

  it('a receiver that fails twice then succeeds: three records, the last succeeded', async () => {
    const t = await sandbox();
    const rx = await receiver((n) => ({ status: n <= 2 ? 503 : 204 }));
    const sub = await t.as('@alice').subscribe(rx.url, ['transfer.initiated']);
    await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.settle(0);
    await t.settle(6_000);
    await t.settle(6 * 60_000);
    const log = await t.as('@alice').deliveries(sub.webhook_id);
    expect(log.map((r) => [r.attempt, r.status_code, r.state, r.retry_count])).toEqual([
      [3, 204, 'succeeded', 2],
      [2, 503, 'retrying', 1],
      [1, 503, 'retrying', 0],
    ]);
    expect(new Set(log.map((r) => r.delivery_id)).size).toBe(1);
    // A success has no error and no next retry: both omitted; a failure has both.
    expect(Object.keys(log[0]!).sort()).toEqual(['attempt', 'attempted_at', 'delivery_id', 'duration_ms', 'event', 'event_id', 'replay', 'retry_count', 'state', 'status_code', 'webhook_id']);
    expect(Object.keys(log[1]!).sort()).toEqual(['attempt', 'attempted_at', 'delivery_id', 'duration_ms', 'error', 'event', 'event_id', 'next_retry_at', 'replay', 'retry_count', 'state', 'status_code', 'webhook_id']);
    await t.settle(48 * HOUR);
    expect(rx.got).toHaveLength(3);
  });

  it('3xx is a failure and is not followed', async () => {
    const t = await sandbox();
    const target = await receiver();
    const rx = await receiver(() => ({ status: 302, headers: { location: target.url } }));
    const sub = await t.as('@alice').subscribe(rx.url, ['transfer.initiated']);
    await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.settle(0);
    const [rec] = await t.as('@alice').deliveries(sub.webhook_id);
    expect(rec).toMatchObject({ status_code: 302, state: 'retrying', error: 'redirect (302) not followed' });
    expect(target.got).toHaveLength(0);
  });

  it('a timeout is a failure and the next attempt waits at least 60 s; so does a Retry-After', async () => {
    const t = await sandbox({}, { timeoutMs: 300 });
    const slow = await receiver(() => 'hang');
    const busy = await receiver(() => ({ status: 429, headers: { 'retry-after': '120' } }));
    const s1 = await t.as('@alice').subscribe(slow.url, ['transfer.initiated']);
    const s2 = await t.as('@alice').subscribe(busy.url, ['transfer.initiated']);
    await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.settle(0);
    const [timedOut] = await t.as('@alice').deliveries(s1.webhook_id);
    expect(timedOut).toMatchObject({ error: 'timed out after 300ms', state: 'retrying' });
    expect(timedOut).not.toHaveProperty('status_code'); // no HTTP answer
    expect(Date.parse(timedOut!.next_retry_at) - Date.parse(timedOut!.attempted_at)).toBeGreaterThanOrEqual(60_000);
    const [limited] = await t.as('@alice').deliveries(s2.webhook_id);
    expect(limited).toMatchObject({ status_code: 429, state: 'retrying' });
    expect(Date.parse(limited!.next_retry_at) - Date.parse(limited!.attempted_at)).toBe(120_000);
  });

  it('reads a Retry-After date on the sandbox clock, not the machine’s', async () => {
    const t = await sandbox();
    await t.settle(30 * 24 * HOUR); // the sandbox is a month ahead of this machine
    const rx = await receiver(() => ({ status: 503, headers: { 'retry-after': new Date(t.world.now() + 2 * HOUR).toUTCString() } }));
    const sub = await t.as('@alice').subscribe(rx.url, ['transfer.initiated']);
    await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.settle(0);
    const [rec] = await t.as('@alice').deliveries(sub.webhook_id);
    expect(rec).toMatchObject({ status_code: 503, state: 'retrying' });
    // Two hours on the sandbox clock (the HTTP date drops the milliseconds), not the last attempt at 24 h.
    const wait = Date.parse(rec!.next_retry_at) - Date.parse(rec!.attempted_at);
    expect(wait).toBeGreaterThan(2 * HOUR - 1_000);
    expect(wait).toBeLessThanOrEqual(2 * HOUR);
  });

  it('a connection reset and a refused connection are failures without a status_code', async () => {
    const t = await sandbox();
    const rx = await receiver(() => 'reset');
    const dead = await receiver();
    const deadUrl = dead.url;
    await dead.close();
    const s1 = await t.as('@alice').subscribe(rx.url, ['transfer.initiated']);
    const s2 = await t.as('@alice').subscribe(deadUrl, ['transfer.initiated']);
    await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.settle(0);
    const [reset] = await t.as('@alice').deliveries(s1.webhook_id);
    expect(reset).toMatchObject({ error: 'connection reset', state: 'retrying' });
    expect(reset).not.toHaveProperty('status_code');
    const [refused] = await t.as('@alice').deliveries(s2.webhook_id);
    expect(refused).toMatchObject({ error: 'connection refused', state: 'retrying' });
    expect(refused).not.toHaveProperty('status_code');
  });

  it('hanging, slow, resetting and failing receivers never hold up other receivers or the API', async () => {
    const t = await sandbox({}, { timeoutMs: 600_000 });
    const hang = await receiver(() => 'hang');
    const slow = await receiver(() => ({ status: 200, delayMs: 600_000 }));
    const reset = await receiver(() => 'reset');
    const failing = await receiver(() => ({ status: 503 }));
    const good = await receiver();
    for (const r of [hang, slow, reset, failing]) await t.as('@alice').subscribe(r.url, ['transfer.initiated']);
    const goodSub = await t.as('@acme').subscribe(good.url, ['transfer.initiated']);
    // More hung attempts than one receiver may hold at once (4): they queue behind each other only.
    for (let i = 0; i < 12; i++) await t.as('@alice').send({ to: '@acme', amount: '1' });
    await hang.waitFor(4);
    await slow.waitFor(4);
    for (let i = 0; i < 5; i++) expect((await t.as('@acme').send({ to: '@alice', amount: '1' })).status).toBe(201);
    await good.waitFor(17); // @acme's side of the 12 transfers it received, and of the 5 it sent
    // The good receiver got everything while the slow one has answered nothing yet and the hung
    // ones are still open: nothing waited for them.
    expect(slow.answered()).toBe(0);
    expect(hang.held()).toBe(4);
    expect(t.world.webhooks.busy).toBeGreaterThan(0);
    expect((await t.as('@alice').get('/v1/webhooks')).status).toBe(200);
    const log = await t.as('@acme').deliveries(goodSub.webhook_id);
    expect(log.filter((r) => r.state === 'succeeded')).toHaveLength(17);
  });
});

// ---- delete -------------------------------------------------------------------------------------

describe('delete', () => {
  it('cancels pending retries at once: nothing is attempted after it answers', async () => {
    const t = await sandbox();
    const rx = await receiver(() => ({ status: 500 }));
    const sub = await t.as('@alice').subscribe(rx.url);
    await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.as('@alice').send({ to: '@acme', amount: '2' });
    await t.settle(0);
    expect(rx.got).toHaveLength(2);
    expect(t.world.webhooks.pending).toBe(2);
    expect((await t.as('@alice').del(`/v1/webhooks/${sub.webhook_id}`)).status).toBe(200);
    expect(t.world.webhooks.pending).toBe(0);
    await t.settle(2 * 24 * HOUR); // settlements fire transfer.confirmed too: no subscription, nothing sent
    expect(rx.got).toHaveLength(2);
  });

  it('aborts attempts in flight and drops queued ones; their results are ignored', async () => {
    // Attempts may hang for 10 minutes: only an abort lets webhooksIdle() return within the test.
    const t = await sandbox({}, { timeoutMs: 600_000, maxPerOrigin: 2 });
    const rx = await receiver(() => 'hang');
    const sub = await t.as('@alice').subscribe(rx.url, ['transfer.initiated']);
    for (let i = 0; i < 5; i++) await t.as('@alice').send({ to: '@acme', amount: '1' });
    await rx.waitFor(2);
    await t.world.scheduler.runDue();
    expect(rx.held()).toBe(2);
    expect(t.world.webhooks.busy).toBe(5); // 2 in flight, 3 waiting for this receiver's slots
    expect((await t.as('@alice').del(`/v1/webhooks/${sub.webhook_id}`)).status).toBe(200);
    await t.handle.webhooksIdle();
    await rx.released(); // aborted: the receiver saw both connections close
    expect(rx.got).toHaveLength(2); // the waiting three never started
    expect(t.world.webhooks.pending).toBe(0);
    await t.settle(24 * HOUR);
    expect(rx.got).toHaveLength(2);
  });

  it('a sandbox reset forgets subscriptions and their queue', async () => {
    const t = await sandbox();
    const rx = await receiver(() => ({ status: 500 }));
    await t.as('@alice').subscribe(rx.url);
    await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.settle(0);
    expect((await t.admin('POST', '/_sandbox/reset')).status).toBe(200);
    expect(t.world.webhooks.pending).toBe(0);
    await t.settle(24 * HOUR);
    expect(rx.got).toHaveLength(1);
  });
});

// ---- restart ------------------------------------------------------------------------------------

describe('restart', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-webhooks-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps subscriptions (secret sealed), the queue with due times, and the log; retries resume', async () => {
    const statePath = join(dir, 'state.db');
    const rx = await receiver((n) => ({ status: n === 1 ? 500 : 200 }));
    const t1 = await start({ statePath, ephemeral: false });
    const sub = await t1.as('@alice').subscribe(rx.url, ['transfer.initiated']);
    const aliceKey = t1.keyOf('@alice');
    await t1.as('@alice').send({ to: '@acme', amount: '7.5' });
    await t1.settle(0);
    const [before] = await t1.as('@alice').deliveries(sub.webhook_id);
    expect(before).toMatchObject({ attempt: 1, state: 'retrying' });
    await t1.close();

    expect(dbBytes(statePath)).not.toContain(sub.secret);
    expect(dbRecords(statePath, 'webhook_subscriptions')[0]).toMatchObject({ webhook_id: sub.webhook_id, secret_sealed: expect.stringMatching(/^v1\./) });
    const deliveries = dbRecords(statePath, 'webhook_deliveries');
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ attempts: 1, due_at: Date.parse(before!.next_retry_at) });

    const t2 = await start({ statePath, ephemeral: false });
    cleanups.push(t2.close);
    const as = (path: string) => t2.call('GET', path, { key: aliceKey });
    expect((await as('/v1/webhooks')).body.webhooks.map((w: { webhook_id: string }) => w.webhook_id)).toEqual([sub.webhook_id]);
    expect(t2.world.webhooks.pending).toBe(1);
    await t2.handle.advance(Date.parse(before!.next_retry_at) - t2.world.now());
    await t2.handle.webhooksIdle();
    expect(rx.got).toHaveLength(2);
    expect(rx.got[1]!.headers['x-service-delivery-attempt']).toBe('2');
    expect(rx.got[1]!.headers['x-service-signature']).toBe(hmac(sub.secret, rx.got[1]!.raw)); // the same secret
    const log = (await as(`/v1/webhooks/${sub.webhook_id}/deliveries`)).body.deliveries;
    expect(log.map((r: { attempt: number; state: string }) => [r.attempt, r.state])).toEqual([[2, 'succeeded'], [1, 'retrying']]);
  });

  it('an attempt cut off by shutdown is made again after the restart, with the same attempt number', async () => {
    const statePath = join(dir, 'state.db');
    let hang = true;
    const rx = await receiver(() => (hang ? 'hang' : { status: 200 }));
    const t1 = await start({ statePath, ephemeral: false }, { timeoutMs: 20_000 });
    const sub = await t1.as('@alice').subscribe(rx.url, ['transfer.initiated']);
    await t1.as('@alice').send({ to: '@acme', amount: '1' });
    await rx.waitFor(1);
    await t1.close();
    hang = false;
    const t2 = await start({ statePath, ephemeral: false });
    cleanups.push(t2.close);
    await t2.handle.webhooksIdle();
    expect(rx.got).toHaveLength(2);
    expect(rx.got[1]!.headers['x-service-delivery-attempt']).toBe('1');
    expect(rx.got[1]!.json.event_id).toBe(rx.got[0]!.json.event_id);
    void sub;
  });

  it('keeps the newest events per account, in memory and on disk: an older one cannot be replayed', async () => {
    const statePath = join(dir, 'state.db');
    const rx = await receiver();
    const t = await sandbox({ statePath, ephemeral: false }, { eventsPerAccount: 2 });
    const sub = await t.as('@alice').subscribe(rx.url, ['transfer.initiated']);
    for (let i = 0; i < 3; i++) await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.settle(0);
    const ids = rx.got.map((r) => r.json.event_id as string);
    expect(ids).toHaveLength(3);
    expect(dbRecords(statePath, 'webhook_events').map((e: { event_id: string }) => e.event_id)).toEqual(ids.slice(1));
    const oldest = await t.as('@alice').post(`/v1/webhooks/${sub.webhook_id}/replay/${ids[0]}`);
    expect([oldest.status, oldest.body.error?.code]).toEqual([404, 'event_not_found']);
    expect((await t.as('@alice').post(`/v1/webhooks/${sub.webhook_id}/replay/${ids[2]}`)).status).toBe(202);
  });

  it('keeps the newest attempt records per subscription, in memory and on disk', async () => {
    const statePath = join(dir, 'state.db');
    const rx = await receiver(() => ({ status: 500 }));
    const t = await sandbox({ statePath, ephemeral: false }, { attemptsPerWebhook: 2 });
    const sub = await t.as('@alice').subscribe(rx.url, ['transfer.initiated']);
    await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.settle(0);
    await t.settle(6_000);
    await t.settle(6 * 60_000);
    expect(rx.got).toHaveLength(3);
    expect((await t.as('@alice').deliveries(sub.webhook_id)).map((r) => r.attempt)).toEqual([3, 2]);
    expect(dbRecords(statePath, 'webhook_attempts').map((r: { attempt: number }) => r.attempt)).toEqual([2, 3]);
  });

  it('a rolled-back change leaves no delivery behind, and the engine goes on', async () => {
    const lines: string[] = [];
    const rx = await receiver();
    const t = await sandbox({ log: (l) => lines.push(l) });
    await t.as('@alice').subscribe(rx.url, ['transfer.initiated']);
    const { store, chain } = t.world;
    const alice = store.accountByHandle('@alice')!;
    const acme = store.accountByHandle('@acme')!;
    const submit = () => chain.submit({ from: alice, to: '@acme', toAccount: acme, toAddress: acme.public_key, asset: 'USDG', units: 1n, confidential: true, memo: undefined, now: t.world.now() });
    expect(() => store.tx(() => {
      submit();
      expect(t.world.webhooks.pending).toBe(1); // queued inside the transaction ...
      throw new Error('boom');
    })).toThrow('boom');
    expect(t.world.webhooks.pending).toBe(0); // ... and gone with it
    expect(lines.some((l) => l.includes('rolled back (boom)'))).toBe(true);
    await t.settle(10_000);
    expect(rx.got).toHaveLength(0);
    expect((await t.as('@alice').send({ to: '@acme', amount: '1' })).status).toBe(201);
    await t.settle(0);
    expect(rx.got).toHaveLength(1);
  });
});
