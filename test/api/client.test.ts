// ApiClient against a real local HTTP server: retries, idempotency keys, tracing, errors.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiClient } from '../../src/api/client.js';
import { ApiError, NetworkError } from '../../src/errors.js';
import { refusedPort, startScriptedServer, type Handler, type RecordedRequest, type ScriptedServer } from '../helpers/scripted-server.js';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A scripted server (test/helpers/scripted-server.ts) closed after each test; `seen` records every request. */
async function serve(handler: Handler): Promise<{ url: string; seen: RecordedRequest[] }> {
  const s = await startScriptedServer(handler);
  servers.push(s);
  return { url: s.url, seen: s.requests };
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

  it('reads a Retry-After date against the injected clock, not the machine\'s', async () => {
    const now = Date.parse('2031-06-01T12:00:00Z');
    let n = 0;
    const s = await serve(() => (++n < 2 ? { status: 503, headers: { 'retry-after': new Date(now + 4_000).toUTCString() }, body: {} } : { status: 200, body: {} }));
    const delays: number[] = [];
    await client(s.url, { now: () => now, sleep: async (ms) => void delays.push(ms) }).get('/v1/accounts/me');
    expect(delays).toEqual([4_000]);
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
    expect(text).toMatch(/< 200 GET .* \((?:\d+(?:ms|s|m))+\) request_id=req_abc/);
    expect(text).toContain('svc_test_****3456');
    expect(text).not.toContain(KEY);
  });

  it('maps refused connections and timeouts to network errors', async () => {
    const refused = await client(`http://127.0.0.1:${await refusedPort()}`).get('/v1/accounts/me').catch((e) => e);
    expect(refused).toBeInstanceOf(NetworkError);
    expect(refused.exitCode).toBe(7);

    const hang = await serve(() => 'hang');
    const timedOut = await client(hang.url, { timeoutMs: 100 }).get('/v1/accounts/me').catch((e) => e);
    expect(timedOut).toBeInstanceOf(NetworkError);
    expect(timedOut.message).toMatch(/within the --timeout of 100ms \(retries included\)/);
  });

  it('ends a try on its time limit whether or not the caller passed a signal, with no unhandled rejection', async () => {
    // The time limit is raced without an 'abort' listener (attempt.ts); with a caller's signal the
    // race is unlessAborted's, and the deadline's own promise must not reject unhandled.
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const hang = await serve(() => 'hang');
      const live = new AbortController();
      for (const signal of [undefined, live.signal]) {
        const err = await client(hang.url, { timeoutMs: 100 }).get('/v1/accounts/me', signal ? { signal } : {}).catch((e) => e);
        expect(err).toBeInstanceOf(NetworkError);
        expect(err.message).toMatch(/within the --timeout of 100ms \(retries included\)/);
      }
      // An unhandled rejection is reported after the turn it happened in.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('rejects a response that does not match the schema', async () => {
    const s = await serve(() => ({ status: 200, body: { handle: 5 } }));
    await expect(client(s.url).get('/v1/accounts/me', { schema: z.object({ handle: z.string() }) })).rejects.toThrow(/handle/);
  });
});
