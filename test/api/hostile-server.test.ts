// The tool against a service that misbehaves: answers that are not JSON or not the right shape,
// a body that never ends, a body far too large, a redirect to another host. Each ends with a
// clear error, the documented exit code and code, a bounded amount read, and the API key never
// sent anywhere but the configured host.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES } from '../../src/api/client.js';
import { runCli } from '../helpers/cli.js';
import { startScriptedServer, UNKNOWN_TEST_KEY } from '../helpers/scripted-server.js';
import { exitCodeForApi } from '../../src/errors.js';
import { startMisbehavingProxy, within } from '../helpers/misbehaving-proxy.js';

interface Hostile {
  url: string;
  /** Requests received, with their authorization header. */
  seen: Array<{ url: string; authorization?: string }>;
  /** Bytes of body written before the client went away, per response. */
  written: number[];
  close(): Promise<void>;
}

const servers: Hostile[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function hostile(respond: (res: ServerResponse, n: number, written: (bytes: number) => void) => void): Promise<Hostile> {
  const seen: Hostile['seen'] = [];
  const written: number[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    const i = written.push(0) - 1;
    req.resume();
    respond(res, seen.length, (bytes) => (written[i]! += bytes));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const h: Hostile = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    written,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
  servers.push(h);
  return h;
}

/** Streams `total` bytes of `chunk` as fast as the client reads them. */
function stream(res: ServerResponse, total: number, chunk: Buffer, written: (n: number) => void): void {
  let sent = 0;
  const pump = () => {
    while (sent < total) {
      sent += chunk.length;
      written(chunk.length);
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  res.on('close', () => (sent = total)); // the client went away
  pump();
}

const env = (url: string) => ({ SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-hostile-')), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: url });
const noSleep = { now: Date.now, sleep: async () => {} };

async function both(argv: string[], url: string) {
  const plain = await runCli(argv, { env: env(url), clock: noSleep });
  const json = await runCli(['--json', ...argv], { env: env(url), clock: noSleep });
  return { plain, json, code: (j: typeof json) => (JSON.parse(j.stderr) as { error: { code: string } }).error.code };
}

describe('a hostile or broken service', () => {
  it('an answer that is not JSON, or not the right shape: invalid_response, exit 1', async () => {
    for (const body of ['<html>hi</html>', '{"account_id": 7}', '[1,2', '']) {
      const s = await hostile((res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
      const r = await both(['account'], s.url);
      expect([r.plain.code, r.json.code]).toEqual([1, 1]);
      expect(r.plain.stderr).toMatch(/^error: unexpected response from GET \/v1\/accounts\/me: .* \(invalid_response\)$/m);
      expect(r.code(r.json)).toBe('invalid_response');
    }
  });

  it('a body that never ends: --timeout is the whole command\'s network time, so the first try uses it all (exit 7)', async () => {
    const s = await hostile((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"account_id":"a'); // ... and nothing more, ever
    });
    for (const timeout of ['0.3', '300ms']) { // a bare number is seconds
      s.seen.length = 0;
      const r = await runCli(['--timeout', timeout, 'account'], { env: env(s.url), clock: noSleep });
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(/^error: no answer from 127\.0\.0\.1:\d+ within the --timeout of 300ms \(retries included\) \(timeout\)$/m);
      expect(s.seen).toHaveLength(1); // no retry once the budget is spent
    }
  });

  it('an https server that never finishes the TLS handshake: --timeout ends it (exit 7) and the connection is closed', async () => {
    // A TCP listener that reads and never answers: the ClientHello gets no reply (issue 27: the
    // half-open connection used to outlive the command by undici's own 10 s connect timeout).
    const l = await startMisbehavingProxy('silent');
    try {
      const r = await runCli(['--json', '--timeout', '300ms', 'account'], { env: env(l.url.replace('http:', 'https:')), clock: noSleep });
      expect(r.code).toBe(7);
      expect((JSON.parse(r.stderr) as { error: { code: string } }).error.code).toBe('timeout');
      expect(l.connections()).toBe(1);
      expect(await within(l.allClosed(), 5_000)).toBe('done');
    } finally {
      await l.close();
    }
  });

  it('an answer nested 100,000 levels deep: a clear error, not a stack overflow', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const s = await hostile((res) => res.writeHead(200, { 'content-type': 'application/json' }).end(deep));
    const r = await both(['api', 'GET', '/v1/anything'], s.url);
    expect([r.plain.code, r.json.code]).toEqual([1, 1]);
    expect(r.plain.stderr).toMatch(/nested deeper than 256 levels \(invalid_response\)/);
    expect(r.code(r.json)).toBe('invalid_response');
  });

  it('an error answer nested 100,000 levels deep, 4xx or 5xx: one small {"error":...} with --json, the exit code of its status (issue 21)', async () => {
    const extra = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    for (const [status, code] of [[400, 'invalid_request'], [422, 'unprocessable'], [503, 'unavailable']] as const) {
      const s = await startScriptedServer(() => ({
        status,
        headers: { 'content-type': 'application/json' },
        body: `{"error":{"code":"${code}","message":"bad amount","request_id":"req_deep1","extra":${extra}}}`,
      }));
      try {
        const r = await runCli(['--json', 'account'], { env: env(s.url), clock: noSleep });
        expect(r.code, r.stderr.slice(0, 300)).toBe(exitCodeForApi(status, code));
        expect(r.stdout).toBe('');
        expect(r.stderr.endsWith('\n') && r.stderr.indexOf('\n') === r.stderr.length - 1).toBe(true); // one line
        const printed = JSON.parse(r.stderr) as { error: Record<string, unknown> };
        expect(Object.keys(printed)).toEqual(['error']);
        expect(printed.error).toMatchObject({ code, message: 'bad amount', status, request_id: 'req_deep1' });
        expect(printed.error).not.toHaveProperty('extra');
        expect(r.stderr.length).toBeLessThan(1_000);
        expect(s.requests).toHaveLength(status >= 500 ? 3 : 1); // a 5xx is still retried as usual
      } finally {
        await s.close();
      }
    }
  });

  it(`a 50 MB body, 200 or 500: response_too_large (exit 1), read no further than about ${MAX_RESPONSE_BYTES / 1024 / 1024} MB, never retried`, async () => {
    for (const status of [200, 500]) {
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const s = await hostile((res, _n, written) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        stream(res, 50 * 1024 * 1024, chunk, written);
      });
      const r = await both(['account'], s.url);
      expect([r.plain.code, r.json.code]).toEqual([1, 1]);
      expect(r.plain.stderr).toMatch(/larger than 10 MB; it was not read \(response_too_large\)/);
      expect(r.code(r.json)).toBe('response_too_large');
      expect(s.seen).toHaveLength(2); // one per run: no retry
      // The client stopped reading soon after the cap (socket buffers let a little more through).
      for (const bytes of s.written) expect(bytes).toBeLessThan(MAX_RESPONSE_BYTES + 8 * 1024 * 1024);
    }
  });

  it('a long error message is cut to a readable length', async () => {
    const s = await hostile((res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'invalid_request', message: 'x'.repeat(100_000) } })));
    const r = await both(['account'], s.url);
    expect(r.plain.code).toBe(2);
    expect(r.plain.stderr.length).toBeLessThan(1_000);
    expect(r.plain.stderr).toMatch(/… \(99500 more characters\) \(invalid_request\)/);
    expect((JSON.parse(r.json.stderr) as { error: { message: string } }).error.message.length).toBeLessThan(600);
  });

  it('a redirect to another host is not followed: the key never reaches it', async () => {
    const elsewhere = await hostile((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    const s = await hostile((res) => res.writeHead(307, { location: `${elsewhere.url}/v1/accounts/me` }).end());
    const r = await both(['account'], s.url);
    expect([r.plain.code, r.json.code]).toEqual([1, 1]);
    expect(r.plain.stderr).toMatch(/redirects are not followed, so nothing was sent there \(redirect_not_followed\)/);
    expect(r.code(r.json)).toBe('redirect_not_followed');
    expect(elsewhere.seen).toEqual([]);
    expect(s.seen.every((x) => x.authorization === `Bearer ${UNKNOWN_TEST_KEY}`)).toBe(true);
  });
});
