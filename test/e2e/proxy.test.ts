// Where a key may travel through a proxy (docs/security.md): only inside a TLS tunnel (CONNECT)
// to an https base URL. Loopback is never proxied, whatever NO_PROXY says, and plain http never
// goes through a proxy. A hostile proxy on loopback records everything it is sent.
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const KEY = 'svc_test_proxytestkey000000000000001';
let target: Server;
let proxy: Server;
let targetUrl: string;
let proxyUrl: string;
/** Everything the proxy saw: CONNECT targets and plain requests (with their headers). */
const seen: Array<{ kind: 'connect' | 'request'; target: string; authorization?: string }> = [];

beforeAll(async () => {
  target = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ account_id: 'acct_1', handle: '@direct', type: 'personal', public_key: '0x' + '1'.repeat(40), kyc_status: 'verified' }));
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;

  // A proxy that records and refuses: if a key ever reached it in clear, it would be in `seen`.
  proxy = createServer((req, res) => {
    seen.push({ kind: 'request', target: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    res.writeHead(502);
    res.end();
  });
  proxy.on('connect', (req, socket) => {
    seen.push({ kind: 'connect', target: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of [target, proxy]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

beforeEach(() => {
  seen.length = 0;
});

const env = (extra: Record<string, string>) => ({ SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-proxy-')), SVC_API_KEY: KEY, ...extra });
const noSleep = { now: Date.now, sleep: async () => {} };

describe('proxies never see a key', () => {
  it('loopback is always direct, with every proxy variable set and an empty NO_PROXY', async () => {
    for (const host of [targetUrl, targetUrl.replace('127.0.0.1', 'localhost')]) {
      const r = await runCli(['--json', 'account'], {
        env: env({ SVC_BASE_URL: host, HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, http_proxy: proxyUrl, https_proxy: proxyUrl, ALL_PROXY: proxyUrl, NO_PROXY: '' }),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).handle).toBe('@direct');
    }
    expect(seen).toEqual([]);
  });

  it('an https base URL goes through HTTPS_PROXY only as a CONNECT tunnel: the proxy sees the host, never the key', async () => {
    const r = await runCli(['account'], { env: env({ SVC_BASE_URL: 'https://api.example.com', HTTPS_PROXY: proxyUrl }), clock: noSleep });
    expect(r.code).toBe(7);
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) {
      expect(s).toEqual({ kind: 'connect', target: 'api.example.com:443' });
    }
    expect(JSON.stringify(seen)).not.toContain(KEY);
  });

  it('HTTP_PROXY alone is used for https too (tunnelled the same way)', async () => {
    const r = await runCli(['account'], { env: env({ SVC_BASE_URL: 'https://api.example.com', HTTP_PROXY: proxyUrl }), clock: noSleep });
    expect(r.code).toBe(7);
    expect(seen.every((s) => s.kind === 'connect' && s.target === 'api.example.com:443')).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
  });

  it('NO_PROXY exempts a host: the request goes direct and the proxy sees nothing', async () => {
    for (const noProxy of ['api.example.invalid', '.example.invalid', '*.example.invalid', 'api.example.invalid:443', '*']) {
      const r = await runCli(['account'], { env: env({ SVC_BASE_URL: 'https://api.example.invalid', HTTPS_PROXY: proxyUrl, NO_PROXY: noProxy }), clock: noSleep });
      expect(r.code, noProxy).toBe(7); // .invalid never resolves: a direct attempt fails on DNS
    }
    expect(seen).toEqual([]);
  });
});

describe('proxies that misbehave: every time limit holds, every retry is bounded', () => {
  async function misbehaving(onSocket: (socket: import('node:net').Socket) => void) {
    let connections = 0;
    const server = createServer();
    server.on('connection', (socket) => {
      connections++;
      onSocket(socket);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      connections: () => connections,
      close: () => new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
    };
  }

  it('a proxy that never answers: --timeout still ends the command (exit 7)', async () => {
    const p = await misbehaving(() => {}); // accepts, then silence
    try {
      const r = await runCli(['--timeout', '300ms', 'account'], { env: env({ SVC_BASE_URL: 'https://api.example.com', HTTPS_PROXY: p.url }) });
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(/within the --timeout of 300ms \(retries included\) \(timeout\)/);
    } finally {
      await p.close();
    }
  });

  it('a proxy that closes every connection: three tries, with pauses, then exit 7 (no reconnect storm)', async () => {
    const p = await misbehaving((socket) => socket.destroy());
    try {
      const r = await runCli(['account'], { env: env({ SVC_BASE_URL: 'https://api.example.com', HTTPS_PROXY: p.url }), clock: noSleep });
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(/\(network_error\)/);
      expect(p.connections()).toBe(3);
    } finally {
      await p.close();
    }
  });
});
