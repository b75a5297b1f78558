// The sandbox as a server on this machine: what a web page (DNS rebinding, a cross-site form
// post) or a slow client can do to it. Each case is the attack itself, on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slowClient } from '../helpers/slow-client.js';
import { rawHttp, startSandbox, wireBytes, type TestSandbox } from './helpers.js';

const SLOW = { headersMs: 300, requestMs: 600, checkEveryMs: 50 };
let t: TestSandbox;

beforeAll(async () => {
  t = await startSandbox({}, { internals: { slowClient: SLOW } });
});
afterAll(() => t.close());

const transferBody = (to: string) => Buffer.from(JSON.stringify({ to, amount: '1.00', asset: 'USDG', idempotency_key: `attack-${to}`, ciphertext: 'x' }));
const transferCount = () => [...t.world.store.allTransfers()].length;

describe('a web page cannot reach the sandbox', () => {
  it('a DNS-rebinding request (Host: evil.example, valid key) is refused with 421 and changes nothing', async () => {
    const before = transferCount();
    for (const target of ['/v1/accounts/me', '/v1/transfers']) {
      const r = await rawHttp(
        t.sandbox.url,
        wireBytes({
          method: target === '/v1/transfers' ? 'POST' : 'GET',
          target,
          defaults: false,
          headers: [['Host', `evil.example:${t.sandbox.port}`], ['Connection', 'close'], ['Authorization', `Bearer ${t.keyOf('@alice')}`], ['Content-Type', 'application/json']],
          ...(target === '/v1/transfers' ? { body: transferBody('@bob') } : {}),
        }),
      );
      expect(r.status).toBe(421);
      expect(JSON.parse(r.text).error.code).toBe('invalid_host');
      expect(r.text).not.toContain('@alice');
    }
    expect(transferCount()).toBe(before);
  });

  it('a cross-site "simple" POST (text/plain, foreign Origin) is refused before its body is read', async () => {
    const before = transferCount();
    const send = (headers: Array<[string, string]>) =>
      rawHttp(t.sandbox.url, wireBytes({ method: 'POST', target: '/v1/transfers', headers: [['Authorization', `Bearer ${t.keyOf('@alice')}`], ...headers], body: transferBody('@bob') }));
    const fromPage = await send([['Content-Type', 'text/plain'], ['Origin', 'https://evil.example']]);
    expect([fromPage.status, JSON.parse(fromPage.text).error.code]).toEqual([403, 'forbidden_origin']);
    // A sandboxed iframe or a file:// page sends Origin: null.
    const nullOrigin = await send([['Content-Type', 'application/json'], ['Origin', 'null']]);
    expect([nullOrigin.status, JSON.parse(nullOrigin.text).error.code]).toEqual([403, 'forbidden_origin']);
    // Without an Origin, text/plain is still not JSON to us.
    const plain = await send([['Content-Type', 'text/plain']]);
    expect([plain.status, JSON.parse(plain.text).error.code]).toEqual([415, 'unsupported_media_type']);
    expect(transferCount()).toBe(before);
  });

  it('a CORS preflight is not granted: no answer carries Access-Control-* headers', async () => {
    const preflight = await rawHttp(t.sandbox.url, wireBytes({ method: 'OPTIONS', target: '/v1/transfers', headers: [['Origin', `http://localhost:${t.sandbox.port}`], ['Access-Control-Request-Method', 'POST'], ['Access-Control-Request-Headers', 'authorization, content-type']] }));
    const page = await rawHttp(t.sandbox.url, wireBytes({ method: 'GET', target: '/v1/accounts/me', headers: [['Authorization', `Bearer ${t.keyOf('@alice')}`], ['Origin', `http://localhost:${t.sandbox.port}`]] }));
    expect(preflight.status).toBeGreaterThanOrEqual(400);
    for (const r of [preflight, page]) expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('a page served from loopback itself (a local dev tool) may call it', async () => {
    const r = await rawHttp(t.sandbox.url, wireBytes({ method: 'GET', target: '/v1/accounts/me', headers: [['Authorization', `Bearer ${t.keyOf('@alice')}`], ['Origin', `http://localhost:${t.sandbox.port}`]] }));
    expect(r.status).toBe(200);
  });
});

describe('a slow client cannot hold a connection', () => {
  it('headers sent one byte per tick: cut off with 408 request_timeout once the headers time limit passes', async () => {
    const r = await slowClient(t.sandbox.url, '', `GET /v1/accounts/me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(10_000)}`, { tickMs: 20, maxTicks: 500 });
    expect(r.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(r.answer.slice(r.answer.indexOf('\r\n\r\n') + 4)).error.code).toBe('request_timeout');
    // It was cut off long before it could finish its headers.
    expect(r.bytesSent).toBeLessThan(10_000);
  });

  it('a body sent one byte per tick: cut off once the request time limit passes', async () => {
    const head = `POST /v1/transfers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.keyOf('@alice')}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n`;
    const before = transferCount();
    const r = await slowClient(t.sandbox.url, head, ' ', { tickMs: 20, maxTicks: 500 });
    expect(r.answer).toMatch(/^HTTP\/1\.1 408 [^]*"code":"request_timeout"/);
    expect(r.bytesSent - head.length).toBeLessThan(60_000);
    expect(transferCount()).toBe(before);
    // The sandbox still serves everyone else.
    expect((await t.call('GET', '/v1/accounts/me', { key: t.keyOf('@alice') })).status).toBe(200);
  });
});
