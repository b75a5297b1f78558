// Only signed deliveries pass: `webhook listen` forwards a delivery to the local app only when
// its signature and timestamp check out (or --forward-unverified says otherwise, loudly), every
// one of them (a retry or replay of an event is a delivery too, as with `stripe listen`), and
// answers with the app's status; it refuses what is not a delivery addressed to it (a foreign Host, a
// browser's Origin). `webhook verify` requires the timestamp when a tolerance applies, and takes
// the secret from a variable or a file, never from argv. Runs in-process; Ctrl-C is injected.
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { startForwardTarget, type ForwardTarget } from '../../helpers/listen.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';

const SECRET = 'whsec_listensecuritytest0001';
const hmac = (body: string) => createHmac('sha256', SECRET).update(body).digest('hex');
const delivery = (eventId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ event_id: eventId, event: 'transfer.confirmed', timestamp: new Date().toISOString(), ...extra });

let t: TestSandbox;
let app: ForwardTarget;

beforeAll(async () => {
  t = await startTestSandbox();
  app = await startForwardTarget();
});
afterAll(async () => {
  await t?.close();
  await app?.close();
});

/** `svc --json webhook listen` in-process on its own port; stop() is Ctrl-C. */
async function startListen(args: string[]) {
  const stop = new AbortController();
  let stderr = '';
  const lines: Array<Record<string, unknown>> = [];
  let onLine: (() => void) | undefined;
  let ready!: (url: string) => void;
  const listening = new Promise<string>((r) => (ready = r));
  const done: Promise<CliResult> = runCli(['--json', 'webhook', 'listen', '--no-subscribe', '--secret-env', 'WH', ...args], {
    env: { ...t.env, WH: SECRET },
    interrupt: stop.signal,
    onStderr: (s) => {
      stderr += s;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) ready(m[1]!);
    },
    onStdout: (s) => {
      for (const l of s.split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      onLine?.();
    },
  });
  const url = await listening;
  const waitLines = (n: number) => new Promise<void>((r) => {
    const check = () => lines.length >= n && r();
    onLine = check;
    check();
  });
  return { url, lines, waitLines, stderr: () => stderr, stop: async () => (stop.abort('SIGINT'), done) };
}

/** A raw POST (fetch cannot set Host or Origin). */
function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('webhook listen forwards only what it verified', () => {
  it('the forged post of the report (no valid signature, a foreign Host and Origin, text/plain) reaches nothing', async () => {
    app.hits.length = 0;
    const l = await startListen(['--forward-to', app.url]);
    try {
      const body = delivery('evt_forged1');
      expect(await post(l.url, body, { host: 'evil.example', origin: 'https://evil.example', 'content-type': 'text/plain' })).toBe(403);
      expect(await post(l.url, body, { origin: 'https://evil.example', 'content-type': 'text/plain' })).toBe(403);
      // Addressed to it, but not signed: checked, answered 401, and not forwarded.
      expect(await post(l.url, body, { 'content-type': 'text/plain', 'x-service-signature': 'ab'.repeat(32) })).toBe(401);
      await l.waitLines(3);
      expect(l.lines.slice(0, 2).map((x) => x.refused)).toEqual(['Host evil.example is not a loopback name', 'a browser request (Origin https://evil.example) is not a delivery']);
      // Nothing of an unsigned body is read: no event id is claimed for it.
      expect(l.lines[2]).toMatchObject({ status: 401, signature_valid: false, valid: false, not_forwarded: 'not forwarded: it failed verification' });
      expect(l.lines[2]).not.toHaveProperty('event_id');
      expect(app.hits).toEqual([]);
    } finally {
      await l.stop();
    }
  });

  it('every signed, fresh delivery is forwarded, the same event again included (a retry or a replay), and answered with the app\'s status', async () => {
    app.hits.length = 0;
    const l = await startListen(['--forward-to', app.url]);
    try {
      const body = delivery('evt_twice');
      for (const attempt of ['1', '2']) {
        expect(await post(l.url, body, { 'content-type': 'application/json', 'x-service-signature': hmac(body), 'x-service-delivery-attempt': attempt })).toBe(204);
      }
      await l.waitLines(2);
      expect(l.lines.map((x) => [x.event_id, x.status, x.forwarded_status, x.not_forwarded])).toEqual([['evt_twice', 204, 204, undefined], ['evt_twice', 204, 204, undefined]]);
      expect(app.hits).toEqual([body, body]);
    } finally {
      await l.stop();
    }
  });

  it('a signed body without a timestamp fails when a tolerance applies (it could be replayed forever)', async () => {
    app.hits.length = 0;
    const l = await startListen(['--forward-to', app.url]);
    try {
      const body = JSON.stringify({ event_id: 'evt_timeless', event: 'transfer.confirmed' });
      expect(await post(l.url, body, { 'content-type': 'application/json', 'x-service-signature': hmac(body) })).toBe(401);
      await l.waitLines(1);
      expect(l.lines[0]).toMatchObject({ signature_valid: true, valid: false, problem: expect.stringMatching(/^timestamp is missing/) });
      expect(app.hits).toEqual([]);
    } finally {
      await l.stop();
    }
  });

  it('--forward-unverified forwards a forged post too, and warns that it does', async () => {
    app.hits.length = 0;
    const l = await startListen(['--forward-to', app.url, '--forward-unverified']);
    try {
      expect(l.stderr()).toMatch(/warning: --forward-unverified: deliveries that FAIL verification are forwarded too/);
      const body = delivery('evt_debug');
      expect(await post(l.url, body, { 'content-type': 'application/json', 'x-service-signature': 'cd'.repeat(32) })).toBe(401);
      await l.waitLines(1);
      expect(l.lines[0]).toMatchObject({ valid: false, forwarded_status: 204 });
      expect(app.hits).toEqual([body]);
    } finally {
      await l.stop();
    }
  });

  it('forwarding to a closed port: one clear line, not a stack; the service is answered 502 (a failure it retries)', async () => {
    const l = await startListen(['--forward-to', 'http://127.0.0.1:9/hooks']);
    try {
      const body = delivery('evt_closed');
      expect(await post(l.url, body, { 'content-type': 'application/json', 'x-service-signature': hmac(body), 'x-service-delivery-attempt': '1' })).toBe(502);
      await l.waitLines(1);
      expect(l.lines[0]).toMatchObject({ status: 502, valid: true, forward_error: 'connection refused', next_attempt: { attempt: 2, in_ms: 5000 } });
    } finally {
      await l.stop();
    }
  });
});

describe('webhook verify', () => {
  const run = (body: string, args: string[], env: Record<string, string> = {}) =>
    runCli(['webhook', 'verify', '--signature', hmac(body), ...args], { env: { ...env }, input: body });

  it('requires the timestamp when a tolerance applies; --tolerance 0 judges by the signature alone', async () => {
    const body = JSON.stringify({ event_id: 'evt_1', event: 'transfer.confirmed' });
    const r = await run(body, ['--secret-env', 'WH'], { WH: SECRET });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: invalid: timestamp is missing.* \(invalid_timestamp\)$/m);
    expect((await run(body, ['--secret-env', 'WH', '--tolerance', '0'], { WH: SECRET })).code).toBe(0);
    const notJson = 'plain text';
    expect((await run(notJson, ['--secret-env', 'WH'], { WH: SECRET })).code).toBe(1);
  });

  it('takes the secret from a file (first line), never from argv', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-secret-')), 'secret');
    writeFileSync(file, `${SECRET}\n`, { mode: 0o600 });
    const body = delivery('evt_file');
    const r = await run(body, ['--secret-file', file]);
    expect(r.code, r.stderr).toBe(0);
    const both = await run(body, ['--secret-file', file, '--secret-env', 'WH'], { WH: SECRET });
    expect(both.code).toBe(2);
    const none = await run(body, []);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--secret-env VAR or --secret-file FILE \(usage\)/);
  });
});
