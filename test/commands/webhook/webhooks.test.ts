// `svc webhook create|ls|rm|deliveries|replay|verify|listen` and `svc sandbox trigger`, end to
// end: bin/svc.js against an in-process sandbox, with local receivers written here. Signatures
// are checked independently (createHmac over the raw bytes received). Waiting is event-driven:
// receivers resolve when requests arrive, and webhooksIdle() after a clock advance.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { startReceiver, type Received, type Receiver } from '../../helpers/webhook-receiver.js';
import { spawnSvc, type LiveRun } from '../../helpers/run.js';

const CANARY = '7341.902817';
const hmac = (secret: string, body: Buffer | string) => createHmac('sha256', secret).update(body).digest('hex');


interface Webhook {
  webhook_id: string;
  url: string;
  events: string[];
  secret?: string;
  created_at: string;
}
interface DeliveryRow {
  delivery_id: string;
  event_id: string;
  event: string;
  attempt: number;
  status_code: number | null;
  retry_count: number;
  state: string;
  next_retry_at: string | null;
  replay: boolean;
}

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (open.length) await open.pop()!().catch(() => {});
});
/** A receiver (test/helpers/webhook-receiver.ts) that answers each delivery with `status(hit, n)`. */
async function receiver(status: (hit: Received, n: number) => number = () => 200): Promise<Receiver> {
  const r = await startReceiver((n, hit) => ({ status: status(hit, n) }));
  open.push(r.close);
  return r;
}

describe('svc webhook create, ls, rm', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(() => t.close());

  it('create prints the secret once with a warning; --json includes it; ls never shows it; rm needs --yes', async () => {
    const r = await t.svc(['webhook', 'create', 'https://hooks.example.com/svc', '--events', 'transfer.confirmed,transfer.failed']);
    expect(r.code).toBe(0);
    const secret = /^(whsec_\S+)$/m.exec(r.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(r.stderr).toMatch(/shown ONCE/);
    expect(r.stdout).toContain('https://hooks.example.com/svc');
    expect(r.stdout.split(secret!)).toHaveLength(2); // printed exactly once

    const created = await t.svcJson<Webhook>(['webhook', 'create', 'http://127.0.0.1:9/h', '--events', 'all']);
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.events).toHaveLength(7);

    const list = await t.svcJson<Webhook[]>(['webhook', 'ls']);
    expect(list.map((w) => w.url)).toEqual(['https://hooks.example.com/svc', 'http://127.0.0.1:9/h']);
    expect(list.every((w) => w.secret === undefined)).toBe(true);
    const plain = await t.svc(['webhook', 'ls']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain('whsec_');
    expect(plain.stdout).toContain(created.webhook_id);

    // Destructive: without a terminal it needs --yes, whatever the key (exit 2, nothing deleted).
    const refused = await t.svc(['webhook', 'rm', created.webhook_id]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^error: .*: confirmation required \(confirmation_required\)\nhint: .*--yes.*\n$/);
    expect((await t.svcJson<Webhook[]>(['webhook', 'ls'])).map((w) => w.webhook_id)).toContain(created.webhook_id);
    const rm = await t.svc(['--yes', 'webhook', 'rm', created.webhook_id]);
    expect(rm.code).toBe(0);
    expect((await t.svcJson<Webhook[]>(['webhook', 'ls'])).map((w) => w.webhook_id)).not.toContain(created.webhook_id);
    const again = await t.svc(['--yes', 'webhook', 'rm', created.webhook_id]);
    expect(again.code).toBe(4);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^error: .* \(webhook_not_found, request req_\w+\)\n/);
  });

  it('refuses bad input before sending anything (exit 2)', async () => {
    for (const args of [
      ['webhook', 'create', 'http://hooks.example.com/x', '--events', 'transfer.confirmed'],
      ['webhook', 'create', 'https://hooks.example.com/x', '--events', 'transfer.settled'],
    ]) {
      const before = (await t.svcJson<Webhook[]>(['webhook', 'ls'])).length;
      const r = await t.svc(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: .* \(invalid_argument\)\n/);
      expect(await t.svcJson<Webhook[]>(['webhook', 'ls'])).toHaveLength(before);
    }
  });
});

describe('deliveries, retries, replay', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(() => t.close());

  it('a receiver that fails twice then succeeds: signed bodies, status codes and retry counts, no amount anywhere', async () => {
    // Fails attempts 1 and 2 of each delivery, accepts the third.
    const rx = await receiver((hit) => (Number(hit.headers['x-service-delivery-attempt']) < 3 ? 500 : 200));
    const wh = await t.svcJson<Webhook>(['webhook', 'create', rx.url, '--events', 'transfer.initiated']);
    expect((await t.svc(['sandbox', 'fund', '@alice', '10000'])).code).toBe(0);
    const sent = await t.svcJson<{ transfer_id: string }>(['transfer', 'send', '@acme', CANARY, '--memo', 'canary memo']);

    await rx.waitFor(1);
    await t.sandbox.webhooksIdle();
    expect((await t.svc(['sandbox', 'clock', 'advance', '6s'])).code).toBe(0);
    await t.sandbox.webhooksIdle();
    expect(rx.got).toHaveLength(2);
    expect((await t.svc(['sandbox', 'clock', 'advance', '6m'])).code).toBe(0);
    await t.sandbox.webhooksIdle();
    expect(rx.got).toHaveLength(3);

    for (const [i, hit] of rx.got.entries()) {
      expect(hit.headers['x-service-signature']).toBe(hmac(wh.secret!, hit.raw));
      expect(hit.headers['x-service-delivery-attempt']).toBe(String(i + 1));
      expect(hit.headers['x-service-event-id']).toBe(hit.json.event_id);
      expect(hit.json).toMatchObject({ event: 'transfer.initiated', account: '@alice', direction: 'sent', counterparty: '@acme', transfer_id: sent.transfer_id });
      const text = hit.raw.toString('utf8');
      expect(text).not.toContain('7341.902817');
      expect(text).not.toContain('7341902817');
      expect(text).not.toContain('canary memo');
    }
    expect(new Set(rx.got.map((h) => h.json.event_id)).size).toBe(1);

    const rows = await t.svcJson<DeliveryRow[]>(['webhook', 'deliveries', wh.webhook_id]);
    expect(rows.map((r) => [r.attempt, r.status_code, r.retry_count, r.state])).toEqual([
      [3, 200, 2, 'succeeded'],
      [2, 500, 1, 'retrying'],
      [1, 500, 0, 'retrying'],
    ]);
    const table = await t.svc(['webhook', 'deliveries', wh.webhook_id]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines).toHaveLength(4); // header + 3 attempts (TSV when piped)
    expect(lines[1]).toMatch(/\t200\t/);
    expect(lines[3]).toMatch(/\t500\t/);

    // Replay: the same event, a new delivery, attempt 1.
    const eventId = rx.got[0]!.json.event_id as string;
    const rp = await t.svc(['webhook', 'replay', wh.webhook_id, eventId]);
    expect(rp.code).toBe(0);
    expect(rp.stderr).toMatch(/as delivery dlv_/);
    await rx.waitFor(4);
    await t.sandbox.webhooksIdle();
    const replayed = rx.got[3]!;
    expect(replayed.json.event_id).toBe(eventId);
    expect(replayed.headers['x-service-delivery-attempt']).toBe('1');
    expect(replayed.headers['x-service-signature']).toBe(hmac(wh.secret!, replayed.raw));
    const after = await t.svcJson<DeliveryRow[]>(['webhook', 'deliveries', wh.webhook_id]);
    expect(after[0]).toMatchObject({ event_id: eventId, attempt: 1, replay: true, status_code: 500, state: 'retrying' });

    const missing = await t.svc(['webhook', 'replay', wh.webhook_id, 'evt_doesnotexist']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^error: .*event.* \(event_not_found, request req_\w+\)\n/);
    const other = await t.svc(['webhook', 'deliveries', wh.webhook_id], { env: { SVC_API_KEY: t.keyOf('@acme') } });
    expect(other.code).toBe(4);
    expect(other.stderr).toMatch(/^error: .* \(webhook_not_found, request req_\w+\)\n/);
  });
});

describe('svc webhook verify', () => {
  let dir: string;
  let t: TestSandbox;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-verify-'));
    t = await startTestSandbox();
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });
  const SECRET = 'whsec_testsecret0000000000000000000000';
  const env = { WH_SECRET: SECRET };

  it('accepts a real delivery (exit 0) and rejects a wrong signature, a changed body or a stale timestamp (exit 1)', async () => {
    const rx = await receiver();
    const wh = await t.svcJson<Webhook>(['webhook', 'create', rx.url, '--events', 'transfer.initiated']);
    await t.svc(['transfer', 'send', '@acme', '1']);
    await rx.waitFor(1);
    const hit = rx.got[0]!;
    const file = join(dir, 'body.json');
    writeFileSync(file, hit.raw);
    const sig = String(hit.headers['x-service-signature']);
    const ok = await t.svc(['webhook', 'verify', '--secret-env', 'S', '--signature', sig, '--payload-file', file], { env: { S: wh.secret! } });
    expect([ok.code, ok.stderr]).toEqual([0, 'valid signature\n']);
    const viaStdin = await t.svc(['--json', 'webhook', 'verify', '--secret-env', 'S', '--signature', sig], { env: { S: wh.secret! }, input: hit.raw.toString('utf8') });
    expect([viaStdin.code, viaStdin.stdout]).toEqual([0, '{"valid":true}\n']);

    const wrongSig = await t.svc(['webhook', 'verify', '--secret-env', 'S', '--signature', 'ab'.repeat(32), '--payload-file', file], { env: { S: wh.secret! } });
    expect(wrongSig.code).toBe(1);
    expect(wrongSig.stderr).toMatch(/^error: invalid: signature does not match.* \(invalid_signature\)\n/);
    const wrongSigJson = await t.svc(['--json', 'webhook', 'verify', '--secret-env', 'S', '--signature', 'ab'.repeat(32), '--payload-file', file], { env: { S: wh.secret! } });
    expect([wrongSigJson.code, wrongSigJson.stdout]).toEqual([1, '']);
    expect(JSON.parse(wrongSigJson.stderr)).toMatchObject({ error: { code: 'invalid_signature' } });
    const wrongSecret = await t.svc(['webhook', 'verify', '--secret-env', 'S', '--signature', sig, '--payload-file', file], { env: { S: SECRET } });
    expect(wrongSecret.code).toBe(1);
    expect(wrongSecret.stderr).not.toContain(SECRET);
    const changed = await t.svc(['webhook', 'verify', '--secret-env', 'S', '--signature', sig], { env: { S: wh.secret! }, input: hit.raw.toString('utf8').replace('@acme', '@bob') });
    expect(changed.code).toBe(1);
    const newline = await t.svc(['webhook', 'verify', '--secret-env', 'S', '--signature', sig], { env: { S: wh.secret! }, input: `${hit.raw.toString('utf8')}\n` });
    expect(newline.code).toBe(1);
    expect(newline.stderr).toMatch(/final newline/);
  });

  it('rejects a correctly signed body whose timestamp is outside the tolerance (replay protection)', async () => {
    const stale = JSON.stringify({ event_id: 'evt_x', event: 'transfer.confirmed', timestamp: new Date(Date.now() - 10 * 60_000).toISOString() });
    const fresh = JSON.stringify({ event_id: 'evt_y', event: 'transfer.confirmed', timestamp: new Date().toISOString() });
    const run = (body: string, extra: string[] = []) =>
      t.svc(['webhook', 'verify', '--secret-env', 'WH_SECRET', '--signature', hmac(SECRET, body), ...extra], { env, input: body });
    const r = await run(stale);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .*outside the 5m tolerance.* \(stale_timestamp\)\n/);
    expect((await run(stale, ['--tolerance', '15m'])).code).toBe(0);
    expect((await run(stale, ['--tolerance', '0'])).code).toBe(0);
    expect((await run(fresh)).code).toBe(0);
    const future = JSON.stringify({ event: 'x', timestamp: new Date(Date.now() + 10 * 60_000).toISOString() });
    expect((await run(future)).code).toBe(1);
  });

  it('usage errors exit 2: unset secret variable, bad tolerance', async () => {
    const unset = await t.svc(['webhook', 'verify', '--secret-env', 'NOPE', '--signature', 'ab'.repeat(32)], { input: '{}' });
    expect([unset.code, unset.stdout]).toEqual([2, '']);
    expect(unset.stderr).toMatch(/^error: --secret-env NOPE: .* \(invalid_argument\)\n$/);
    const tolerance = await t.svc(['webhook', 'verify', '--secret-env', 'WH_SECRET', '--signature', 'ab'.repeat(32), '--tolerance', 'soon'], { env, input: '{}' });
    expect([tolerance.code, tolerance.stdout]).toEqual([2, '']);
    expect(tolerance.stderr).toMatch(/^error: --tolerance .* \(invalid_argument\)\n$/);
  });
});

describe('svc webhook listen', () => {
  let t: TestSandbox;
  const children: LiveRun[] = [];
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(async () => {
    for (const c of children) if (!c.done()) c.child.kill('SIGKILL');
    await t.close();
  });

  async function startListen(args: string[] = []): Promise<{ run: LiveRun; url: string; webhookId: string }> {
    const run = spawnSvc(['--json', 'webhook', 'listen', ...args], t.env);
    children.push(run);
    await run.waitFor('stderr', /listening on http:\/\/\S+ \(subscription wh_\w+/);
    const m = /listening on (http:\/\/\S+) \(subscription (wh_\w+)/.exec(run.stderr())!;
    return { run, url: m[1]!, webhookId: m[2]! };
  }
  const lines = (run: LiveRun) => run.stdout().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any

  it('receives and verifies deliveries, flags a bad signature, and deletes its subscription on SIGINT', async () => {
    const { run, url, webhookId } = await startListen(['--temporary']);
    const subs = await t.svcJson<Webhook[]>(['webhook', 'ls']);
    expect(subs.find((w) => w.webhook_id === webhookId)).toMatchObject({ url, events: expect.arrayContaining(['transfer.initiated', 'agent.policy.updated']) });

    expect((await t.svc(['transfer', 'send', '@acme', '2'])).code).toBe(0);
    await run.waitFor('stdout', /"event":"transfer.initiated"/);
    const [first] = lines(run);
    expect(first).toMatchObject({ event: 'transfer.initiated', signature_valid: true, valid: true, attempt: 1 });
    expect(first).not.toHaveProperty('problem'); // never null: absent when there is none
    expect(first!.payload).toMatchObject({ account: '@alice', direction: 'sent', counterparty: '@acme' });
    expect(first!.event_id).toBe(first!.payload.event_id);

    // A delivery with a wrong signature is flagged and answered 401.
    const body = JSON.stringify({ event_id: 'evt_forged', event: 'transfer.confirmed', timestamp: new Date().toISOString() });
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': 'ab'.repeat(32) }, body });
    expect(res.status).toBe(401);
    await run.waitFor('stdout', /"signature_valid":false/);
    const forged = lines(run).find((l) => l.signature_valid === false)!;
    expect(forged).toMatchObject({ status: 401, valid: false, problem: expect.stringMatching(/signature does not match/) });
    expect(forged).not.toHaveProperty('event_id'); // an unsigned body is not read

    // The sandbox clock moved forward: deliveries are still judged fresh against the sandbox's time.
    expect((await t.svc(['sandbox', 'clock', 'advance', '2h'])).code).toBe(0); // settles the transfer
    await run.waitFor('stdout', /"event":"transfer.confirmed".*"signature_valid":true/);
    expect(lines(run).find((l) => l.event === 'transfer.confirmed')).toMatchObject({ valid: true });

    run.child.kill('SIGINT');
    const end = await run.exited;
    expect(end.code).toBe(130);
    expect(end.stderr).toContain(`deleted subscription ${webhookId}`);
    expect((await t.svcJson<Webhook[]>(['webhook', 'ls'])).map((w) => w.webhook_id)).not.toContain(webhookId);
  });

  it('forwards the exact body and headers to --forward-to', async () => {
    const target = await receiver(() => 204);
    const { run } = await startListen(['--forward-to', target.url, '--print-secret', '--events', 'transfer.initiated']);
    // The secret is a separate line after "listening on": wait for it too.
    await run.waitFor('stderr', /signing secret: whsec_\S+\n/);
    const secret = /signing secret: (whsec_\S+)/.exec(run.stderr())![1]!;
    expect((await t.svc(['transfer', 'send', '@acme', '3'])).code).toBe(0);
    await target.waitFor(1);
    await run.waitFor('stdout', /"forwarded_status":204/);
    const hit = target.got[0]!;
    expect(hit.headers['x-service-signature']).toBe(hmac(secret, hit.raw)); // exact bytes
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['x-service-event-id']).toBe(hit.json.event_id);
    expect(hit.headers['x-service-delivery-attempt']).toBe('1');
    expect(hit.headers['user-agent']).toMatch(/^svc-sandbox-webhooks\//);
    expect(lines(run)[0]!.payload).toEqual(hit.json);
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(130);
  });
});

describe('svc sandbox trigger', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(() => t.close());

  it('fires a sample event of the given type to the profile account’s subscriptions', async () => {
    const rx = await receiver();
    const wh = await t.svcJson<Webhook>(['webhook', 'create', rx.url, '--events', 'all']);
    const r = await t.svc(['sandbox', 'trigger', 'agent.transaction.pending_approval']);
    expect(r.code).toBe(0);
    const eventId = r.stdout.trim();
    expect(eventId).toMatch(/^evt_/);
    expect(r.stderr).toMatch(/queued for 1 subscription/);
    await rx.waitFor(1);
    expect(rx.got[0]!.json).toMatchObject({ event_id: eventId, event: 'agent.transaction.pending_approval', sample: true, agent: '@alice/sample-agent' });
    expect(rx.got[0]!.headers['x-service-signature']).toBe(hmac(wh.secret!, rx.got[0]!.raw));

    const json = await t.svcJson<{ event: string; account: string; sample: boolean; deliveries: unknown[] }>(['sandbox', 'trigger', 'transfer.failed']);
    expect(json).toMatchObject({ event: 'transfer.failed', account: '@alice', sample: true });
    expect(json.deliveries).toHaveLength(1);
    const acme = await t.svc(['sandbox', 'trigger', 'transfer.confirmed', '--account', '@acme']);
    expect(acme.code).toBe(0);
    expect(acme.stderr).toMatch(/no subscription of @acme/);
    const bad = await t.svc(['sandbox', 'trigger', 'transfer.settled']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^error: .*transfer\.settled.* \([a-z_]+(, request req_\w+)?\)\n/);
    await rx.waitFor(2);
  });
});
