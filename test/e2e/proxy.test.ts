// The client honours HTTP(S)_PROXY and NO_PROXY (undici's EnvHttpProxyAgent).
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc } from '../helpers/run.js';

const KEY = 'svc_test_proxytestkey000000000000001';
let target: Server;
let proxy: Server;
let targetUrl: string;
let proxyUrl: string;
const tunnels: string[] = [];

beforeAll(async () => {
  target = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ account_id: 'acct_1', handle: '@proxied', type: 'personal', public_key: '0x' + '1'.repeat(40), kyc_status: 'verified' }));
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;

  // A CONNECT proxy that records each tunnel's destination and pipes bytes both ways.
  proxy = createServer((_req, res) => {
    res.writeHead(502);
    res.end();
  });
  proxy.on('connect', (req, socket, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
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

describe('proxy support', () => {
  const base = () => ({ SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-proxy-')), SVC_API_KEY: KEY, SVC_BASE_URL: targetUrl });

  it('tunnels through HTTP_PROXY', async () => {
    tunnels.length = 0;
    const r = await runSvc(['--json', 'account'], { ...base(), HTTP_PROXY: proxyUrl, NO_PROXY: '' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).handle).toBe('@proxied');
    expect(tunnels).toEqual([new URL(targetUrl).host]);
  });

  it('connects directly for hosts in NO_PROXY', async () => {
    tunnels.length = 0;
    const r = await runSvc(['--json', 'account'], { ...base(), HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' });
    expect(r.code).toBe(0);
    expect(tunnels).toEqual([]);
  });
});
