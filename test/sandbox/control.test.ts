import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, units, type TestSandbox, expectApiError } from './helpers.js';

let t: TestSandbox;
beforeEach(async () => {
  t = await startSandbox({ blockTimeMs: 1500 });
});
afterEach(async () => {
  await t.close();
});

describe('/_sandbox control API', () => {
  it('health needs no token', async () => {
    const res = await t.call('GET', '/_sandbox/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, chain_id: 46630, now: t.sandbox.now().toISOString(), instance: t.sandbox.instance, pid: process.pid });
    expect(t.sandbox.instance).toMatch(/^[0-9a-f]{32}$/);
  });

  it('every other route needs the admin token (header or Bearer); API keys do not count', async () => {
    for (const [method, path] of [['POST', '/_sandbox/reset'], ['POST', '/_sandbox/fund'], ['POST', '/_sandbox/keys'], ['GET', '/_sandbox/keys'], ['POST', '/_sandbox/keys/key_x/revoke'], ['GET', '/_sandbox/clock'], ['POST', '/_sandbox/clock/advance']] as const) {
      expectApiError(await t.call(method, path), 401, 'unauthorized');
      expectApiError(await t.call(method, path, { key: t.keyOf('@alice') }), 401, 'unauthorized');
      expectApiError(await t.call(method, path, { headers: { 'x-sandbox-admin-token': 'nope' } }), 401, 'unauthorized');
    }
    const bearer = await t.call('GET', '/_sandbox/clock', { headers: { authorization: `Bearer ${t.sandbox.adminToken}` } });
    expect(bearer.status).toBe(200);
  });

  it('fund credits exactly, echoes no amount, and validates like a transfer', async () => {
    const res = await t.admin('POST', '/_sandbox/fund', { handle: '@bob', amount: '0.000001', asset: 'USDC' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, handle: '@bob', asset: 'USDC' });
    expect(t.balance('@bob', 'USDC')).toBe(1n);
    expect((await t.admin('POST', '/_sandbox/fund', { handle: '@BOB', amount: '5' })).body.asset).toBe('USDG');
    expect(t.balance('@bob')).toBe(units('105'));
    expectApiError(await t.admin('POST', '/_sandbox/fund', { handle: '@nobody', amount: '5' }), 404, 'account_not_found');
    expectApiError(await t.admin('POST', '/_sandbox/fund', { handle: 'bob', amount: '5' }), 400, 'invalid_request');
    expectApiError(await t.admin('POST', '/_sandbox/fund', { handle: '@bob', amount: '5.0000001' }), 400, 'invalid_request');
    expectApiError(await t.admin('POST', '/_sandbox/fund', { handle: '@bob', amount: 5 }), 400, 'invalid_request');
    expectApiError(await t.admin('POST', '/_sandbox/fund', { handle: '@bob', amount: '5', asset: 'DOGE' }), 400, 'invalid_request');
    expectApiError(await t.admin('POST', '/_sandbox/fund', { handle: '@bob', amount: '1' + '0'.repeat(40) }), 400, 'invalid_request');
    expect(t.balance('@bob')).toBe(units('105'));
  });

  it('fund honours Idempotency-Key', async () => {
    const h = { headers: { 'idempotency-key': 'f1' } };
    await t.admin('POST', '/_sandbox/fund', { handle: '@bob', amount: '5' }, h);
    const again = await t.admin('POST', '/_sandbox/fund', { handle: '@bob', amount: '5' }, h);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(t.balance('@bob')).toBe(units('105'));
    expectApiError(await t.admin('POST', '/_sandbox/fund', { handle: '@bob', amount: '6' }, h), 409, 'idempotency_key_reused');
  });

  it('keys: create shows the key once; the list never does; revoke is immediate and idempotent', async () => {
    const created = await t.admin('POST', '/_sandbox/keys', { account: '@acme', name: 'ci' });
    expect(created.status).toBe(201);
    // Never used, not revoked: last_used_at and revoked_at are absent (never null).
    expect(Object.keys(created.body).sort()).toEqual(['account', 'created_at', 'key', 'key_hint', 'key_id', 'name', 'request_count']);
    expect(created.body).toMatchObject({ name: 'ci', account: '@acme', request_count: 0 });
    expect(created.body.key).toMatch(/^svc_test_[A-Za-z0-9]{32}$/);
    expect(created.body.key_hint).toBe(`svc_test_****${created.body.key.slice(-4)}`);

    expect((await t.as('@alice').get('/v1/accounts/me')).status).toBe(200);
    const list = await t.admin('GET', '/_sandbox/keys');
    expect(list.body.keys).toHaveLength(5);
    expect(list.text).not.toContain(created.body.key);
    for (const s of t.sandbox.seeded) expect(list.text).not.toContain(s.apiKey!);
    const rec = list.body.keys.at(-1);
    expect(Object.keys(rec).sort()).toEqual(['account', 'created_at', 'key_hint', 'key_id', 'name', 'request_count']);
    // A used key shows last_used_at.
    const used = list.body.keys.find((k: { account: string }) => k.account === '@alice');
    expect(Object.keys(used).sort()).toEqual(['account', 'created_at', 'key_hint', 'key_id', 'last_used_at', 'name', 'request_count']);
    expect(used.last_used_at).toBe(t.sandbox.now().toISOString());
    expect((await t.admin('GET', '/_sandbox/keys?account=@acme')).body.keys.map((k: { name: string }) => k.name)).toEqual(['seed', 'ci']);

    const revoked = await t.admin('POST', `/_sandbox/keys/${created.body.key_id}/revoke`);
    expect(revoked.body.revoked_at).toBe(t.sandbox.now().toISOString());
    expect(revoked.body).not.toHaveProperty('last_used_at');
    await t.sandbox.advance(5000);
    const again = await t.admin('POST', `/_sandbox/keys/${created.body.key_id}/revoke`);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    expectApiError(await t.admin('POST', '/_sandbox/keys/key_unknown/revoke'), 404, 'key_not_found');
    expectApiError(await t.admin('POST', '/_sandbox/keys', { account: '@nobody' }), 404, 'account_not_found');
    expectApiError(await t.admin('POST', '/_sandbox/keys', { account: '@acme', name: 'x'.repeat(65) }), 400, 'invalid_request');
    expect((await t.admin('POST', '/_sandbox/keys', { account: '@acme' })).body.name).toBe('unnamed');
  });

  it('clock: get and advance (which settles what became due before answering)', async () => {
    const before = await t.admin('GET', '/_sandbox/clock');
    expect(before.body).toEqual({ now: t.sandbox.now().toISOString(), offset_ms: 0 });
    const sent = (await t.as('@alice').send({ to: '@acme', amount: '1' })).body;
    const adv = await t.admin('POST', '/_sandbox/clock/advance', { ms: 1500 });
    expect(adv.body).toEqual({ now: new Date(Date.parse(before.body.now) + 1500).toISOString(), offset_ms: 1500 });
    expect((await t.as('@alice').get(`/v1/transfers/${sent.transfer_id}`)).body.status).toBe('confirmed');
    expectApiError(await t.admin('POST', '/_sandbox/clock/advance', { ms: -1 }), 400, 'invalid_request');
    expectApiError(await t.admin('POST', '/_sandbox/clock/advance', { ms: 1.5 }), 400, 'invalid_request');
    expectApiError(await t.admin('POST', '/_sandbox/clock/advance', { ms: '10' }), 400, 'invalid_request');
    expectApiError(await t.admin('POST', '/_sandbox/clock/advance', {}), 400, 'invalid_request');
    expect((await t.admin('GET', '/_sandbox/clock')).body.offset_ms).toBe(1500);
  });

  it('reset re-seeds with new keys: old keys stop working, transfers and funds are gone, the clock keeps its offset', async () => {
    const oldKey = t.keyOf('@alice');
    await t.as('@alice').send({ to: '@acme', amount: '100' });
    await t.sandbox.advance(60_000);
    const res = await t.admin('POST', '/_sandbox/reset');
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.seeded.map((s: { handle: string }) => s.handle)).toEqual(['@alice', '@acme', '@bob', '@oldwallet']);
    const alice = res.body.seeded[0];
    expect(Object.keys(alice).sort()).toEqual(['account_id', 'api_key', 'confidential_ready', 'decryption_key', 'handle', 'key_id', 'kyc_status', 'public_key', 'type']);
    expect(alice.decryption_key).toMatch(/^svc_dk_test_/);
    expect(alice.api_key).not.toBe(oldKey);
    expectApiError(await t.call('GET', '/v1/accounts/me', { key: oldKey }), 401, 'unauthorized');
    const list = await t.call('GET', '/v1/transfers', { key: alice.api_key });
    expect(list.body.transfers).toEqual([]);
    expect(t.balance('@alice')).toBe(units('1000'));
    expect((await t.admin('GET', '/_sandbox/clock')).body.offset_ms).toBe(60_000);
  });

  it('reset drops scheduled settlements of the old world', async () => {
    await t.as('@alice').send({ to: '@acme', amount: '100' });
    await t.admin('POST', '/_sandbox/reset');
    expect(t.world.scheduler.size).toBe(0);
    await t.sandbox.advance(1500);
    expect(t.balance('@acme')).toBe(units('50000'));
  });
});
