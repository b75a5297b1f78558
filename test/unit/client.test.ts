// ApiClient against a real local HTTP server: retries, idempotency keys, tracing, errors.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiClient } from '../../src/api/client.js';
import { ApiError, NetworkError } from '../../src/errors.js';

function stop(s: Server): Promise<void> {
  s.closeAllConnections();
  return new Promise((r) => s.close(() => r()));
}

type Handler = (req: IncomingMessage, body: string) => { status: number; body?: unknown; headers?: Record<string, string> };
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => stop(s)));
});

async function serve(handler: Handler): Promise<{ url: string; seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> }> {
  const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const r = handler(req, body);
      res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
      res.end(r.body === undefined ? '' : JSON.stringify(r.body));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const KEY = 'svc_test_abcdefghijklmnopqrstuvwxyz123456';
const noSleep = async () => {};
const client = (url: string, extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) =>
  new ApiClient({ baseUrl: url, apiKey: KEY, sleep: noSleep, ...extra });

describe('ApiClient', () => {
  it('sends auth, JSON and an idempotency key on POST, and validates with the schema', async () => {
    const s = await serve(() => ({ status: 201, body: { transfer_id: 'tr_1', status: 'pending', to: '@bob', extra: 1 } }));
    const schema = z.looseObject({ transfer_id: z.string() });
    const r = await client(s.url).post('/v1/transfers', { body: { to: '@bob', amount: '1.50' }, schema });
    expect(r.data).toEqual({ transfer_id: 'tr_1', status: 'pending', to: '@bob', extra: 1 });
    expect(s.seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(s.seen[0]!.headers['content-type']).toBe('application/json');
    expect(s.seen[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(s.seen[0]!.body)).toEqual({ to: '@bob', amount: '1.50' });
  });

  it('retries a GET on 503 and stops after 3 tries', async () => {
    const s = await serve(() => ({ status: 503, body: { error: { code: 'unavailable', message: 'down' } } }));
    const delays: number[] = [];
    const err = await client(s.url, { sleep: async (ms) => void delays.push(ms) }).get('/v1/accounts/me').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(s.seen).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it('retries a keyed POST with the same key and honours Retry-After', async () => {
    let n = 0;
    const s = await serve(() => (++n < 3 ? { status: 429, headers: { 'retry-after': '2' }, body: {} } : { status: 201, body: { ok: true } }));
    const delays: number[] = [];
    await client(s.url, { sleep: async (ms) => void delays.push(ms) }).post('/v1/transfers', { body: {}, idempotencyKey: 'k-1' });
    expect(s.seen.map((x) => x.headers['idempotency-key'])).toEqual(['k-1', 'k-1', 'k-1']);
    expect(delays).toEqual([2000, 2000]);
  });

  it('never retries PATCH or 4xx', async () => {
    const s = await serve(() => ({ status: 500, body: {} }));
    await expect(client(s.url).patch('/v1/agents/a/spend-policy', { body: {} })).rejects.toBeInstanceOf(ApiError);
    expect(s.seen).toHaveLength(1);
    const t = await serve(() => ({ status: 404, body: { error: { code: 'transfer_not_found', message: 'no', request_id: 'req_9' } } }));
    const err = (await client(t.url).get('/v1/transfers/x').catch((e) => e)) as ApiError;
    expect([err.code, err.requestId, err.exitCode]).toEqual(['transfer_not_found', 'req_9', 4]);
    expect(t.seen).toHaveLength(1);
  });

  it('traces method, URL, status and timing with the key masked', async () => {
    const s = await serve(() => ({ status: 200, body: {}, headers: { 'x-request-id': 'req_abc' } }));
    const lines: string[] = [];
    await client(s.url, { trace: (l) => lines.push(l) }).get('/v1/accounts/me');
    const text = lines.join('\n');
    expect(text).toContain(`> GET ${s.url}/v1/accounts/me`);
    expect(text).toMatch(/< 200 GET .* \(\d+ ms\) request_id=req_abc/);
    expect(text).toContain('svc_test_****3456');
    expect(text).not.toContain(KEY);
  });

  it('maps refused connections and timeouts to network errors', async () => {
    const s = await serve(() => ({ status: 200 }));
    await stop(servers.pop()!);
    const refused = await client(s.url).get('/v1/accounts/me').catch((e) => e);
    expect(refused).toBeInstanceOf(NetworkError);
    expect(refused.exitCode).toBe(7);

    const hang = createServer(() => {});
    servers.push(hang);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
    const timedOut = await client(url, { timeoutMs: 100 }).get('/v1/accounts/me').catch((e) => e);
    expect(timedOut).toBeInstanceOf(NetworkError);
    expect(timedOut.message).toMatch(/within the --timeout of 100ms \(retries included\)/);
  });

  it('rejects a response that does not match the schema', async () => {
    const s = await serve(() => ({ status: 200, body: { handle: 5 } }));
    await expect(client(s.url).get('/v1/accounts/me', { schema: z.object({ handle: z.string() }) })).rejects.toThrow(/handle/);
  });
});
