// `webhook listen --forward-to` as a loop with a real app (a receiver on loopback) and the
// in-process sandbox: the service is answered what the app answered, so the app's 500 is a failed
// attempt in `webhook deliveries`, listen says when the retry comes, and the retry reaches the app
// once the sandbox clock moves; a replay of an event the app took reaches it again; --json stdout
// is one JSON object per line, forward results and retries included, the secret on stderr only.
// `webhook verify` judges the sandbox's events on the sandbox's clock. Waiting is on events.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { listenInProcess, post, type InProcessListen } from '../../helpers/listen.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';

interface DeliveryRow {
  delivery_id: string;
  event_id: string;
  attempt: number;
  status_code?: number;
  state: string;
  replay: boolean;
}

let t: TestSandbox;
let dir: string;
const open: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  t = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'svc-listen-forward-'));
});
afterEach(async () => {
  while (open.length) await open.pop()!().catch(() => {});
  await removeSubscriptions();
});
/** Kept subscriptions outlive their test: none is left to deliver to a port a later listen may be given. */
async function removeSubscriptions(): Promise<void> {
  for (const w of await t.svcJson<Array<{ webhook_id: string }>>(['webhook', 'ls'])) await t.svc(['--yes', 'webhook', 'rm', w.webhook_id]);
}
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The local app: answers the n-th request `status(n)`. */
async function app(status: (n: number) => number): Promise<Receiver> {
  const r = await startReceiver((n) => ({ status: status(n) }));
  open.push(r.close);
  return r;
}
async function listen(args: string[], json = true): Promise<InProcessListen> {
  const l = await listenInProcess(t, args, { json });
  open.push(() => l.stop());
  return l;
}
async function trigger(): Promise<string> {
  const r = await t.svc(['sandbox', 'trigger', 'transfer.confirmed']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}
const deliveries = (id: string) => t.svcJson<DeliveryRow[]>(['webhook', 'deliveries', id]);
const advance = async (by: string) => expect((await t.svc(['sandbox', 'clock', 'advance', by])).code).toBe(0);

describe('webhook listen --forward-to answers the service with the app\'s status', () => {
  it('the app\'s 500 is a failed attempt the service retries; the retry reaches the app once the sandbox clock moves', async () => {
    const rx = await app((n) => (n === 1 ? 500 : 200));
    const l = await listen(['--forward-to', rx.url, '--events', 'transfer.confirmed'], false);
    const eventId = await trigger();
    await rx.waitFor(1);
    await t.sandbox.webhooksIdle();
    const first = await l.waitLine((x) => String(x.text).includes(eventId));
    expect(first.text).toMatch(new RegExp(`${eventId} @alice → \\S+ {2}✓ signed {2}→ 500 · the service retries in ~5s \\(attempt 2\\)$`));
    expect((await deliveries(l.webhookId!)).map((r) => [r.event_id, r.attempt, r.status_code, r.state])).toEqual([[eventId, 1, 500, 'retrying']]);

    await advance('10m');
    await t.sandbox.webhooksIdle();
    expect(rx.got).toHaveLength(2);
    expect(rx.got[1]!.json.event_id).toBe(eventId);
    expect(rx.got[1]!.headers['x-service-delivery-attempt']).toBe('2');
    const second = await l.waitLine((x) => String(x.text).includes(eventId) && String(x.text).includes('(attempt 2)  ✓'));
    expect(second.text).toMatch(/ \(attempt 2\) {2}✓ signed {2}→ 200$/);
    expect((await deliveries(l.webhookId!)).map((r) => [r.attempt, r.status_code, r.state])).toEqual([[2, 200, 'succeeded'], [1, 500, 'retrying']]);
  });

  it('a replay of an event the app already took reaches the app again (a new delivery, as `stripe events resend`)', async () => {
    const rx = await app(() => 204);
    const l = await listen(['--forward-to', rx.url, '--events', 'transfer.confirmed']);
    const eventId = await trigger();
    await rx.waitFor(1);
    await l.waitLines(1);
    const replay = await t.svc(['webhook', 'replay', l.webhookId!, eventId]);
    expect(replay.code, replay.stderr).toBe(0);
    await rx.waitFor(2);
    await t.sandbox.webhooksIdle();
    expect(rx.got.map((h) => [h.json.event_id, h.headers['x-service-delivery-attempt']])).toEqual([[eventId, '1'], [eventId, '1']]);
    await l.waitLines(2);
    expect(l.lines.map((x) => [x.event_id, x.status, x.forwarded_status, x.not_forwarded])).toEqual([[eventId, 204, 204, undefined], [eventId, 204, 204, undefined]]);
    const rows = await deliveries(l.webhookId!);
    expect(rows.map((r) => [r.replay, r.status_code, r.state])).toEqual([[true, 204, 'succeeded'], [false, 204, 'succeeded']]);
  });

  it('--json: every stdout line is one JSON object (forward results, failures and retries too); the secret is on stderr only', async () => {
    const rx = await app((n) => (n === 1 ? 503 : 200));
    const l = await listen(['--forward-to', rx.url, '--events', 'transfer.confirmed']);
    const eventId = await trigger();
    await rx.waitFor(1);
    await t.sandbox.webhooksIdle();
    await advance('10s');
    await t.sandbox.webhooksIdle();
    // Not deliveries: a browser's request (403), a forged one (401).
    expect(await post(l.url, '{}', { origin: 'https://evil.example' })).toBe(403);
    expect(await post(l.url, '{}', { 'x-service-signature': 'ab'.repeat(32) })).toBe(401);
    await l.waitLines(4);
    const out = l.stdout();
    expect(out.endsWith('\n')).toBe(true);
    const docs = out.slice(0, -1).split('\n').map((line) => JSON.parse(line) as unknown);
    expect(docs).toHaveLength(4);
    for (const d of docs) expect(d !== null && typeof d === 'object' && !Array.isArray(d)).toBe(true);
    expect(docs[0]).toMatchObject({ event_id: eventId, attempt: 1, status: 503, forwarded_status: 503, valid: true, next_attempt: { attempt: 2, in_ms: 5000 } });
    expect(docs[1]).toMatchObject({ event_id: eventId, attempt: 2, status: 200, forwarded_status: 200, valid: true });
    expect(docs[1]).not.toHaveProperty('next_attempt');
    expect(docs[2]).toMatchObject({ status: 403, refused: expect.stringMatching(/Origin/) });
    expect(docs[3]).toMatchObject({ status: 401, signature_valid: false });
    expect(docs[3]).not.toHaveProperty('next_attempt'); // an unsigned request's attempt header is nobody's word
    // The whole secret, once, on stderr; never on stdout.
    expect(l.secret).toMatch(/^whsec_[A-Za-z0-9_-]{16,}$/);
    expect(l.stderr()).toContain(`signing secret: ${l.secret}\n`);
    expect(out).not.toContain(l.secret);
  });
});

describe('webhook verify judges the sandbox\'s events on the sandbox\'s clock', () => {
  it('accepts a sandbox event after `sandbox clock advance`; refuses it once it is stale on that clock; a real service stays on this machine\'s clock', async () => {
    const rx = await app(() => 200);
    const wh = await t.svcJson<{ webhook_id: string; secret: string }>(['webhook', 'create', rx.url, '--events', 'transfer.confirmed']);
    await advance('2h');
    const eventId = await trigger();
    await rx.waitFor(1);
    const hit = rx.got.find((h) => h.json.event_id === eventId)!;
    const file = join(dir, 'body.json');
    writeFileSync(file, hit.raw);
    const verify = (env: Record<string, string> = {}) =>
      t.svc(['webhook', 'verify', '--secret-env', 'S', '--signature', String(hit.headers['x-service-signature']), '--payload-file', file], { env: { S: wh.secret, ...env } });

    const ok = await verify();
    expect([ok.code, ok.stderr]).toEqual([0, 'valid signature\n']);
    // Strict still, on the sandbox's clock: ten minutes later by it, the same delivery is stale.
    await advance('10m');
    const stale = await verify();
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^error: invalid: timestamp \S+ is outside the 5m tolerance .*\(judged on the clock of the sandbox at http:\/\/127\.0\.0\.1:\d+\) \(stale_timestamp\)\n/);
    // A base URL that is no sandbox's (https): judged on this machine's clock, where the sandbox's time is 2h10m ahead; nothing is asked.
    const real = await verify({ SVC_BASE_URL: 'https://api.example.invalid' });
    expect(real.code).toBe(1);
    expect(real.stderr).toMatch(/\(stale_timestamp\)\n/);
    expect(real.stderr).not.toMatch(/judged on|did not answer/);
  });
});
