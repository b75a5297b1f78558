// A hostile peer against `svc webhook listen`, end to end on a real loopback socket: unsigned,
// badly signed and correctly signed bodies of every odd shape (a `toString` that is not a
// function, `__proto__` keys, 100,000 levels deep, 20 MB, bad UTF-8, cut-off JSON, a sender that
// hangs up mid-body). Each gets its 4xx, the listener keeps listening and still forwards a
// genuine event the sandbox signs, and once stopped (--temporary) the sandbox lists no subscription.
// In-process (main(argv), Ctrl-C injected) and spawned (bin/svc.js, SIGTERM and SIGINT).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { hostileBodies, listenInProcess, post, postCutShort, sign, startForwardTarget, type ForwardTarget } from '../../helpers/listen.js';
import { spawnSvc, type LiveRun } from '../../helpers/run.js';

let t: TestSandbox;
let app: ForwardTarget;
const children: LiveRun[] = [];

beforeAll(async () => {
  t = await startTestSandbox();
  app = await startForwardTarget();
});
afterAll(async () => {
  for (const c of children) if (!c.done()) c.child.kill('SIGKILL');
  await app?.close();
  await t?.close();
});

const subscriptions = async () => (await t.svcJson<Array<{ webhook_id: string }>>(['webhook', 'ls'])).map((w) => w.webhook_id);
const now = () => t.sandbox.now().toISOString();
const MB20 = Buffer.alloc(20 * 1024 * 1024, 0x20);

/** A genuine event, signed by the sandbox: its event_id. */
async function trigger(): Promise<string> {
  const r = await t.svc(['sandbox', 'trigger', 'transfer.confirmed']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('webhook listen in-process: every hostile body gets its 4xx, and the listener goes on', () => {
  it('unsigned, badly signed and signed hostile bodies; 20 MB; a sender hanging up; then a genuine event; Ctrl-C deletes the subscription', async () => {
    app.hits.length = 0;
    const l = await listenInProcess(t, ['--temporary', '--forward-to', app.url]);
    expect(await subscriptions()).toEqual([l.webhookId]);
    let expected = 0;
    const statuses: Array<[string, string, number | string]> = [];
    for (const h of hostileBodies(now())) {
      statuses.push([h.name, 'unsigned', await post(l.url, h.body)]);
      statuses.push([h.name, 'bad signature', await post(l.url, h.body, { 'x-service-signature': sign('whsec_not_the_secret', h.body) })]);
      statuses.push([h.name, 'signed', await post(l.url, h.body, { 'x-service-signature': sign(l.secret, h.body) })]);
      expected += 3;
    }
    // A verified delivery is answered what the app answered it (204); a refusal is listen's own.
    const forwarded = (h: { signed: number }) => (h.signed === 200 ? 204 : h.signed);
    expect(statuses).toEqual(hostileBodies(now()).flatMap((h) => [[h.name, 'unsigned', 401], [h.name, 'bad signature', 401], [h.name, 'signed', forwarded(h)]]));
    // Two signature headers, or one that is not hex: still just unsigned.
    const one = hostileBodies(now())[1]!.body;
    expect(await post(l.url, one, { 'x-service-signature': [sign(l.secret, one), sign(l.secret, one)] })).toBe(401);
    expect(await post(l.url, one, { 'x-service-signature': '{"toString":1}' })).toBe(401);
    expected += 2;
    // 20 MB, announced or not (chunked: only counting stops it), signed or not.
    expect(await post(l.url, MB20, { 'x-service-signature': sign(l.secret, MB20) })).toBe(413);
    expect(await post(l.url, MB20, {}, { chunked: true })).toBe(413);
    expected += 2;
    // A body cut off by a sender that hangs up: nobody to answer, and nothing breaks.
    await postCutShort(l.url);
    expected += 1;
    await l.waitLines(expected);

    // Every request has its line; nothing of an unsigned body was read; no stack anywhere.
    const unsigned = l.lines.filter((x) => x.signature_valid === false);
    expect(unsigned).toHaveLength(2 * hostileBodies(now()).length + 2);
    for (const x of unsigned) expect(Object.keys(x).filter((k) => ['event', 'event_id', 'payload'].includes(k))).toEqual([]);
    expect(l.lines.filter((x) => x.status === 400).map((x) => x.problem)).toContain('body is nested deeper than 32 levels');
    expect(l.lines.filter((x) => x.status === 400).map((x) => x.problem)).toContain('event_id must be a string of 1 to 1024 characters');
    expect(l.lines.filter((x) => x.status === 400).map((x) => x.problem)).toContain('body is not valid UTF-8');
    expect(l.lines.filter((x) => x.status === 413)).toHaveLength(2);
    expect(l.lines.at(-1)).toMatchObject({ refused: 'the sender hung up before the whole body arrived' });
    expect(l.stderr()).not.toMatch(/TypeError|RangeError|at .*\.js:\d+/);
    // The two signed oddities that are well-formed deliveries were accepted, printed as data and forwarded.
    const proto = l.lines.find((x) => x.event_id === 'evt_proto1')!;
    expect(proto).toMatchObject({ status: 204, valid: true, forwarded_status: 204 });
    expect(JSON.stringify(proto.payload)).toContain('"__proto__":{"toString":1}');

    // Still listening: a genuine event, signed by the sandbox, is verified and forwarded.
    const eventId = await trigger();
    const genuine = await l.waitLine((x) => x.event_id === eventId);
    expect(genuine).toMatchObject({ status: 204, event: 'transfer.confirmed', valid: true, forwarded_status: 204 });
    expect(app.hits.map((h) => (JSON.parse(h) as { event_id: string }).event_id)).toEqual(['evt_proto1', 'evt_proto2', eventId]);

    const end = await l.stop();
    expect(end.code).toBe(130);
    expect(end.stderr).toContain(`deleted subscription ${l.webhookId}`);
    expect(await subscriptions()).toEqual([]);
  });

  it('without --json the printed lines come from the same checks (a signed __proto__ full of objects prints, an unsigned one is not read)', async () => {
    const l = await listenInProcess(t, ['--temporary'], { json: false });
    const proto = Buffer.from(`{"__proto__":{"account":{"toString":1}},"event_id":"evt_human","event":"transfer.confirmed","account":"@alice","direction":"sent","counterparty":{"toString":1},"timestamp":"${now()}"}`);
    const odd = Buffer.from(`{"event_id":"evt_human2","event":"transfer.confirmed","account":{"toString":1},"timestamp":"${now()}"}`);
    expect(await post(l.url, odd)).toBe(401);
    expect(await post(l.url, odd, { 'x-service-signature': sign(l.secret, odd) })).toBe(400);
    expect(await post(l.url, proto, { 'x-service-signature': sign(l.secret, proto) })).toBe(400); // counterparty is not a string
    const fine = Buffer.from(`{"__proto__":{"account":{"toString":1}},"event_id":"evt_human3","event":"transfer.confirmed","timestamp":"${now()}"}`);
    expect(await post(l.url, fine, { 'x-service-signature': sign(l.secret, fine) })).toBe(200);
    await l.waitLines(4);
    expect(l.lines.map((x) => String(x.text).slice(10))).toEqual([
      '(unverified)  ✗ X-Service-Signature is missing',
      '(malformed)  ✗ account must be a string of 1 to 1024 characters',
      '(malformed)  ✗ counterparty must be a string of 1 to 1024 characters',
      `${'transfer.confirmed'.padEnd(34)} evt_human3  ✓ signed`,
    ]);
    const end = await l.stop();
    expect(end.code).toBe(130);
    expect(await subscriptions()).toEqual([]);
  });
});

describe('webhook listen spawned (bin/svc.js): a hostile peer does not kill the process; a signal still cleans up', () => {
  async function spawnListen(args: string[]): Promise<{ run: LiveRun; url: string; webhookId: string; secret: string }> {
    const run = spawnSvc(['webhook', 'listen', '--temporary', ...args], t.env);
    children.push(run);
    await run.waitFor('stderr', /signing secret: whsec_\S+\n/);
    const m = /listening on (http:\/\/\S+) \(subscription (wh_\w+)[^]*signing secret: (whsec_\S+)/.exec(run.stderr())!;
    return { run, url: m[1]!, webhookId: m[2]!, secret: m[3]! };
  }

  it('--json, hostile bodies, then a genuine event; SIGTERM: exit 130 and no subscription left', async () => {
    app.hits.length = 0;
    const { run, url, webhookId, secret } = await spawnListen(['--json', '--forward-to', app.url]);
    expect(await subscriptions()).toEqual([webhookId]);
    for (const h of hostileBodies(now())) {
      expect([h.name, await post(url, h.body)]).toEqual([h.name, 401]);
      expect([h.name, await post(url, h.body, { 'x-service-signature': sign(secret, h.body) })]).toEqual([h.name, h.signed === 200 ? 204 : h.signed]); // the app's 204
    }
    expect(await post(url, MB20)).toBe(413);
    await postCutShort(url);
    await run.waitFor('stdout', /hung up/);
    const eventId = await trigger();
    await run.waitFor('stdout', new RegExp(`"event_id":"${eventId}".*"forwarded_status":204`));
    expect(app.hits.at(-1)).toContain(eventId);

    run.child.kill('SIGTERM');
    const end = await run.exited;
    expect(end.code).toBe(130);
    expect(end.stderr).toContain(`deleted subscription ${webhookId}`);
    expect(end.stderr).not.toMatch(/TypeError|RangeError|at .*\.js:\d+/);
    expect(await subscriptions()).toEqual([]);
  });

  it('--json | head -1: the reader goes away, the next line meets EPIPE; listen deletes its subscription and exits 0', async () => {
    const { run, webhookId } = await spawnListen(['--json']);
    run.child.stdout.destroy(); // what `head -1` does once it has its line
    await trigger(); // the line listen writes now has no reader
    const end = await run.exited;
    expect(end.stderr).toContain(`deleted subscription ${webhookId}`);
    expect(end.code).toBe(0);
    expect(await subscriptions()).toEqual([]);
  });

  it('printed for a person, an unsigned body full of objects; SIGINT: exit 130 and no subscription left', async () => {
    const { run, url, webhookId, secret } = await spawnListen([]);
    const odd = Buffer.from(`{"event_id":"evt_p","event":"transfer.confirmed","account":{"toString":1},"counterparty":{"toString":1},"timestamp":"${now()}"}`);
    expect(await post(url, odd)).toBe(401);
    expect(await post(url, odd, { 'x-service-signature': sign(secret, odd) })).toBe(400);
    const eventId = await trigger();
    await run.waitFor('stdout', new RegExp(`transfer\\.confirmed +${eventId} @alice`));
    expect(run.stdout()).toMatch(/\(unverified\) {2}✗ X-Service-Signature is missing\n.*\(malformed\) {2}✗ account must be a string/);

    run.child.kill('SIGINT');
    const end = await run.exited;
    expect(end.code).toBe(130);
    expect(end.stderr).toContain(`deleted subscription ${webhookId}`);
    expect(await subscriptions()).toEqual([]);
  });
});
