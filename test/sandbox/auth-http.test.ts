import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import { request, startSandbox, type TestSandbox, expectApiError } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await startSandbox();
});
afterAll(async () => {
  await t.close();
});

describe('seeded world', () => {
  it('has @alice, @acme, @bob and @oldwallet with keys, addresses and the documented settings', async () => {
    expect(t.sandbox.restored).toBe(false);
    expect(t.sandbox.seeded.map((a) => [a.handle, a.type, a.kyc_status, a.confidential_ready])).toEqual([
      ['@alice', 'personal', 'verified', true],
      ['@acme', 'business', 'verified', true],
      ['@bob', 'personal', 'unverified', true],
      ['@oldwallet', 'personal', 'verified', false],
    ]);
    for (const a of t.sandbox.seeded) {
      expect(a.apiKey).toMatch(/^svc_test_[A-Za-z0-9]{32}$/);
      expect(a.public_key).toMatch(/^0x[0-9a-f]{40}$/);
    }
    expect(t.balance('@alice')).toBe(1_000_000_000n);
    expect(t.balance('@alice', 'USDC')).toBe(250_000_000n);
    expect(t.balance('@acme')).toBe(50_000_000_000n);
    expect(t.balance('@bob')).toBe(100_000_000n);
    expect(t.balance('@oldwallet')).toBe(0n);
  });

  it('GET /v1/accounts/me answers the spec fields for the key’s account', async () => {
    const res = await t.as('@acme').get('/v1/accounts/me');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['account_id', 'created_at', 'handle', 'kyc_status', 'public_key', 'type', 'viewing_public_key']);
    expect(res.body.viewing_public_key).toMatch(/^vpk1_[A-Za-z0-9_-]{43}$/);
    expect(res.body).toMatchObject({ handle: '@acme', type: 'business', kyc_status: 'verified' });
    expect(res.body.account_id).toMatch(/^acct_[A-Za-z0-9]+$/);
    expect(res.body.public_key).toBe(t.sandbox.seeded[1]!.public_key);
    expect(res.body.created_at).toBe(new Date(Date.parse(res.body.created_at)).toISOString());
  });
});

describe('authentication', () => {
  it.each([
    ['no header', undefined, 'missing API key: send the header "Authorization: Bearer <key>"'],
    ['a Basic header', 'Basic abc', 'the Authorization header must be "Bearer <key>"'],
    ['an unknown test key', 'Bearer svc_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'invalid API key'],
    ['not a svc key', 'Bearer hello', 'invalid API key'],
    ['a live key', 'Bearer svc_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'live keys (svc_live_...) are refused: the sandbox is testnet only (chain id 46630); use a svc_test_ key'],
  ])('401 unauthorized with %s', async (_what, authorization, message) => {
    const res = await t.call('GET', '/v1/accounts/me', authorization ? { headers: { authorization } } : {});
    expectApiError(res, 401, 'unauthorized');
    expect(res.body.error.message).toBe(message);
    const post = await t.call('POST', '/v1/transfers', { body: { to: '@acme', amount: '1' }, ...(authorization ? { headers: { authorization } } : {}) });
    expectApiError(post, 401, 'unauthorized');
  });

  it('a live key is refused even when its rest matches a real key', async () => {
    const live = t.keyOf('@alice').replace('svc_test_', 'svc_live_');
    expectApiError(await t.call('GET', '/v1/accounts/me', { key: live }), 401, 'unauthorized');
  });

  it('401 comes before body validation', async () => {
    expectApiError(await t.call('POST', '/v1/transfers', { raw: 'not json' }), 401, 'unauthorized');
  });

  it('a revoked key is refused at once; others keep working', async () => {
    const created = await t.admin('POST', '/_sandbox/keys', { account: '@acme', name: 'temp' });
    const key = created.body.key as string;
    expect((await t.call('GET', '/v1/accounts/me', { key })).status).toBe(200);
    const revoked = await t.admin('POST', `/_sandbox/keys/${created.body.key_id}/revoke`);
    expect(revoked.status).toBe(200);
    const res = await t.call('GET', '/v1/accounts/me', { key });
    expectApiError(res, 401, 'unauthorized');
    expect(res.body.error.message).toBe('this API key has been revoked');
    expect((await t.as('@acme').get('/v1/accounts/me')).status).toBe(200);
  });

  it('records last use and request count per key', async () => {
    const created = await t.admin('POST', '/_sandbox/keys', { account: '@bob', name: 'counted' });
    for (let i = 0; i < 3; i++) await t.call('GET', '/v1/accounts/me', { key: created.body.key });
    await t.call('GET', '/v1/transfers?limit=0', { key: created.body.key }); // a 400 still counts
    const list = await t.admin('GET', '/_sandbox/keys?account=@bob');
    const rec = list.body.keys.find((k: { key_id: string }) => k.key_id === created.body.key_id);
    expect(rec.request_count).toBe(4);
    expect(rec.last_used_at).toBe(t.sandbox.now().toISOString());
  });

  it('stores keys only as SHA-256 hashes with a 4-character hint (in the database)', () => {
    const rows = JSON.stringify(t.world.store.tableRows('api_keys'));
    for (const s of t.sandbox.seeded) expect(rows).not.toContain(s.apiKey!.slice(9));
    const alice = [...t.world.store.keys()][0]!;
    expect(alice.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(alice.hint).toBe(t.keyOf('@alice').slice(-4));
  });
});

describe('HTTP plumbing', () => {
  it('404 not_found for an unknown route, 405 with Allow for a wrong method', async () => {
    expectApiError(await t.as('@alice').get('/v1/nothing'), 404, 'not_found');
    expectApiError(await t.call('GET', '/'), 404, 'not_found');
    const res = await t.call('DELETE', '/v1/transfers', { key: t.keyOf('@alice') });
    expectApiError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('POST, GET');
    const res2 = await t.call('POST', '/v1/transfers/tr_x', { key: t.keyOf('@alice') });
    expectApiError(res2, 405, 'method_not_allowed');
    expect(res2.headers.get('allow')).toBe('GET');
    expectApiError(await t.call('PUT', '/_sandbox/reset'), 405, 'method_not_allowed');
  });

  it('413 payload_too_large beyond 64 KiB', async () => {
    const res = await t.as('@alice').send({ to: '@acme', amount: '1', memo: 'x'.repeat(70 * 1024) });
    expectApiError(res, 413, 'payload_too_large');
    expect(t.balance('@alice')).toBe(1_000_000_000n);
  });

  it('every answer has an X-Request-Id, and errors repeat it in the body', async () => {
    const ok = await t.as('@alice').get('/v1/accounts/me');
    const bad = await t.call('GET', '/v1/accounts/me');
    expect(ok.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(bad.body.error.request_id).toBe(bad.headers.get('x-request-id'));
    expect(ok.headers.get('x-request-id')).not.toBe(bad.headers.get('x-request-id'));
    expect(ok.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('logs one line per request: method, path, status, ms; never a key, body, amount or query value', async () => {
    t.logs.length = 0;
    await t.as('@alice').send({ to: '@acme', amount: '42.817396', memo: 'log-canary' });
    await t.as('@alice').get('/v1/transfers?status=pending&limit=3');
    await t.call('GET', '/v1/accounts/me', { headers: { authorization: 'Bearer svc_live_SECRETSECRETSECRETSECRET' } });
    expect(t.logs).toHaveLength(3);
    expect(t.logs[0]).toMatch(/^POST \/v1\/transfers 201 \d+\.\dms req_[0-9a-f]{32}$/);
    expect(t.logs[1]).toMatch(/^GET \/v1\/transfers 200 \d+\.\dms req_[0-9a-f]{32}$/);
    expect(t.logs[2]).toMatch(/^GET \/v1\/accounts\/me 401 /);
    const all = t.logs.join('\n');
    for (const s of [t.keyOf('@alice'), '42.817396', '42817396', 'log-canary', 'SECRET', 'pending', 'Bearer']) expect(all).not.toContain(s);
  });

  it('with logRequests: false (what --quiet passes) no request line is made at all', async () => {
    const quiet = await startSandbox({ logRequests: false });
    try {
      expect((await quiet.as('@alice').send({ to: '@acme', amount: '1' })).status).toBe(201);
      expect((await quiet.call('GET', '/v1/accounts/me')).status).toBe(401);
      expect(quiet.logs).toEqual([]);
    } finally {
      await quiet.close();
    }
  });

  it('keeps connections alive', async () => {
    const http = await import('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const reused: boolean[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((resolve, reject) => {
          const req = http.get(`${t.sandbox.url}/_sandbox/health`, { agent }, (res) => {
            reused.push(req.reusedSocket);
            res.resume();
            res.on('end', () => resolve());
          });
          req.on('error', reject);
        });
      }
    } finally {
      agent.destroy();
    }
    expect(reused).toEqual([false, true, true]);
  });
});

describe('createSandbox options', () => {
  it('refuses a non-loopback host with a clear error', async () => {
    await expect(createSandbox({ host: '0.0.0.0', port: 0, ephemeral: true })).rejects.toMatchObject({
      code: 'invalid_option',
      message: 'refusing to listen on 0.0.0.0: the sandbox serves loopback addresses only',
    });
    await expect(createSandbox({ host: '192.168.1.10', port: 0, ephemeral: true })).rejects.toMatchObject({ code: 'invalid_option' });
    await expect(createSandbox({ port: 70000, ephemeral: true })).rejects.toMatchObject({ code: 'invalid_option' });
    await expect(createSandbox({ port: 0, ephemeral: true, blockTimeMs: -1 })).rejects.toMatchObject({ code: 'invalid_option' });
  });

  it('listens on ::1 too, and reports a busy port', async () => {
    const v6 = await createSandbox({ host: '::1', port: 0, ephemeral: true }).catch(() => undefined);
    if (v6) {
      expect(v6.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect((await request(v6.url, 'GET', '/_sandbox/health')).status).toBe(200);
      await v6.close();
    }
    const a = await createSandbox({ port: 0, ephemeral: true });
    await expect(createSandbox({ port: a.port, ephemeral: true })).rejects.toMatchObject({ code: 'address_in_use' });
    await a.close();
  });
});
