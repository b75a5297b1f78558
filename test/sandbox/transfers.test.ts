import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, units, type TestSandbox, expectApiError } from './helpers.js';

const DEAD = '0x000000000000000000000000000000000000dEaD';
// The spec's fields, `asset`, and the amount ciphertext to the reader's own viewing key (no memo
// was sent); `confirmed_at` only once confirmed (an unset field is omitted, never null).
const VIEW_KEYS = ['amount_ciphertext', 'asset', 'confidential', 'created_at', 'from', 'status', 'to', 'transfer_id', 'tx_hash'];

describe('POST /v1/transfers', () => {
  let t: TestSandbox;
  beforeEach(async () => {
    t = await startSandbox({ blockTimeMs: 1500 });
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates a pending transfer: 201, the documented fields, no amount and no memo', async () => {
    const res = await t.as('@alice').send({ to: '@acme', amount: '12.508163', memo: 'invoice 7' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...VIEW_KEYS, 'memo_ciphertext'].sort());
    expect(res.body).toMatchObject({ status: 'pending', from: '@alice', to: '@acme', confidential: true, asset: 'USDG' });
    expect(res.body).not.toHaveProperty('confirmed_at');
    expect(res.body.transfer_id).toMatch(/^tr_[A-Za-z0-9]{24}$/);
    expect(res.body.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.body.created_at).toBe(new Date(Date.parse(res.body.created_at)).toISOString());
    expect(res.text).not.toMatch(/12\.508163|12508163|invoice/);
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(t.balance('@alice')).toBe(units('987.491837')); // reserved at once
    expect(t.balance('@acme')).toBe(units('50000')); // credited only on settlement
  });

  it('keeps `to` as given and accepts addresses, USDC, confidential false and unknown fields', async () => {
    const res = await t.as('@alice').send({ to: '0x1111111111111111111111111111111111111111', amount: '0.000001', asset: 'USDC', confidential: false, extra: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ to: '0x1111111111111111111111111111111111111111', asset: 'USDC', confidential: false });
    expect(t.balance('@alice', 'USDC')).toBe(units('249.999999', 'USDC'));
    // Any case with a valid EIP-55 checksum, or one case only (no checksum); a mixed case that
    // does not match its checksum is a typo: 400.
    for (const to of ['0xaBCdeFABcDeF0123456789012345678901234567', '0xabcdefabcdef0123456789012345678901234567', '0xABCDEFABCDEF0123456789012345678901234567']) {
      expect((await t.as('@alice').send({ to, amount: '1' })).status).toBe(201);
    }
    const typo = await t.as('@alice').send({ to: '0xABCDEFabcdef0123456789012345678901234567', amount: '1' });
    expect(typo.status).toBe(400);
    expect(typo.body).toMatchObject({ error: { code: 'invalid_request', message: expect.stringMatching(/^to does not match its EIP-55 checksum/) } });
  });

  it.each([
    ['not JSON', '{"to":', 'request body is not valid JSON'],
    ['an array', '[]', 'request body must be a JSON object'],
    ['null', 'null', 'request body must be a JSON object'],
    ['a string', '"hi"', 'request body must be a JSON object'],
    ['empty', '', 'request body is required: a JSON object'],
  ])('400 invalid_request when the body is %s', async (_what, raw, message) => {
    const res = await t.call('POST', '/v1/transfers', { key: t.keyOf('@alice'), raw });
    expectApiError(res, 400, 'invalid_request');
    expect(res.body.error.message).toBe(message);
  });

  it.each([
    [{ amount: '1' }, 'to is required'],
    [{ to: 5, amount: '1' }, 'to must be a string'],
    [{ to: 'alice', amount: '1' }, 'to must be an @handle or a 0x address of 40 hex digits'],
    [{ to: '0x123', amount: '1' }, 'to must be an @handle or a 0x address of 40 hex digits'],
    [{ to: '@acme' }, 'amount is required'],
    [{ to: '@acme', amount: 1 }, 'amount must be a decimal string such as "12.50", not a JSON number'],
    [{ to: '@acme', amount: '1.1234567' }, 'amount must have at most 6 decimal places for USDG'],
    [{ to: '@acme', amount: '0' }, 'amount must be greater than zero'],
    [{ to: '@acme', amount: '0.000000' }, 'amount must be greater than zero'],
    [{ to: '@acme', amount: '-1' }, 'amount must be a plain decimal like 12.50 (no sign, exponent or spaces)'],
    [{ to: '@acme', amount: '1e3' }, 'amount must be a plain decimal like 12.50 (no sign, exponent or spaces)'],
    [{ to: '@acme', amount: '' }, 'amount must be a non-empty decimal string'],
    [{ to: '@acme', amount: '1', asset: 'BTC' }, 'asset must be one of USDG, USDC (got "BTC")'],
    [{ to: '@acme', amount: '1', asset: 'usdg' }, 'asset must be one of USDG, USDC (got "usdg")'],
    [{ to: '@acme', amount: '1', confidential: 'yes' }, 'confidential must be true or false'],
    [{ to: '@acme', amount: '1', memo: 7 }, 'memo must be a string'],
    [{ to: '@acme', amount: '1', memo: 'é'.repeat(129) }, 'memo must be at most 256 bytes of UTF-8'],
    [{ to: '@alice', amount: '1' }, 'to must not be your own account: a transfer to yourself is not allowed'],
  ])('400 invalid_request for %j', async (body, message) => {
    const res = await t.as('@alice').send(body as Record<string, unknown>);
    expectApiError(res, 400, 'invalid_request');
    expect(res.body.error.message).toBe(message);
    expect(t.balance('@alice')).toBe(units('1000'));
  });

  it('accepts a memo of exactly 256 bytes', async () => {
    expect((await t.as('@alice').send({ to: '@acme', amount: '1', memo: 'é'.repeat(128) })).status).toBe(201);
  });

  it('400 for sending to your own address', async () => {
    const me = (await t.as('@alice').get('/v1/accounts/me')).body;
    const res = await t.as('@alice').send({ to: me.public_key.toUpperCase().replace('0X', '0x'), amount: '1' });
    expectApiError(res, 400, 'invalid_request');
  });

  it('403 kyc_required for @bob, after body validation', async () => {
    expectApiError(await t.as('@bob').send({ to: '@alice', amount: '1' }), 403, 'kyc_required');
    expectApiError(await t.as('@bob').send({ to: '@alice', amount: 'x' }), 400, 'invalid_request');
    expect(t.balance('@bob')).toBe(units('100'));
  });

  it('404 recipient_not_found for an unknown handle, before 422 and 402', async () => {
    const res = await t.as('@alice').send({ to: '@nobody', amount: '999999' });
    expectApiError(res, 404, 'recipient_not_found');
    expect(res.body.error.message).toBe('no account has the handle @nobody');
  });

  it('422 recipient_not_confidential_ready for @oldwallet and 0x2222…, unless confidential is false; before 402', async () => {
    for (const to of ['@oldwallet', '0x2222222222222222222222222222222222222222']) {
      expectApiError(await t.as('@alice').send({ to, amount: '999999' }), 422, 'recipient_not_confidential_ready');
      expectApiError(await t.as('@alice').send({ to, amount: '1', confidential: true }), 422, 'recipient_not_confidential_ready');
      const ok = await t.as('@alice').send({ to, amount: '1', confidential: false });
      expect(ok.status).toBe(201);
      expect(ok.body.confidential).toBe(false);
    }
    // @oldwallet by its address is the same wallet.
    const addr = t.world.store.accountByHandle('@oldwallet')!.public_key;
    expectApiError(await t.as('@alice').send({ to: addr, amount: '1' }), 422, 'recipient_not_confidential_ready');
  });

  it('402 insufficient_balance, per asset, and nothing is reserved', async () => {
    expectApiError(await t.as('@alice').send({ to: '@acme', amount: '1000.000001' }), 402, 'insufficient_balance');
    expectApiError(await t.as('@alice').send({ to: '@acme', amount: '250.000001', asset: 'USDC' }), 402, 'insufficient_balance');
    expectApiError(await t.as('@acme').send({ to: '@alice', amount: '1', asset: 'USDC' }), 402, 'insufficient_balance');
    expect(t.balance('@alice')).toBe(units('1000'));
    expect((await t.as('@alice').send({ to: '@acme', amount: '1000' })).status).toBe(201);
    expectApiError(await t.as('@alice').send({ to: '@acme', amount: '0.000001' }), 402, 'insufficient_balance');
  });

  it('concurrent sends never overdraw: of 50 parallel sends only the 7 that fit succeed', async () => {
    await t.admin('POST', '/_sandbox/fund', { handle: '@oldwallet', amount: '7' });
    const results = await Promise.all(
      Array.from({ length: 50 }, () => t.as('@oldwallet').send({ to: '@alice', amount: '1' })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(7);
    expect(statuses.filter((s) => s === 402)).toHaveLength(43);
    expect(t.balance('@oldwallet')).toBe(0n);
    await t.sandbox.advance(1500);
    expect(t.balance('@oldwallet')).toBe(0n);
    expect(t.balance('@alice')).toBe(units('1007'));
    const listed = await t.as('@oldwallet').get('/v1/transfers?limit=100');
    expect(listed.body.transfers).toHaveLength(7);
    expect(listed.body.transfers.every((x: { status: string }) => x.status === 'confirmed')).toBe(true);
  });
});

describe('settlement', () => {
  let t: TestSandbox;
  beforeEach(async () => {
    t = await startSandbox({ blockTimeMs: 1500 });
  });
  afterEach(async () => {
    await t.close();
  });

  it('confirms at created_at + block time on the sandbox clock and credits the recipient', async () => {
    const created = (await t.as('@alice').send({ to: '@acme', amount: '100.25' })).body;
    await t.sandbox.advance(1499);
    const before = await t.as('@alice').get(`/v1/transfers/${created.transfer_id}`);
    expect(before.body).toMatchObject({ status: 'pending' });
    expect(before.body).not.toHaveProperty('confirmed_at');
    expect(t.balance('@acme')).toBe(units('50000'));
    await t.sandbox.advance(1);
    const after = await t.as('@alice').get(`/v1/transfers/${created.transfer_id}`);
    expect(after.body).toEqual({ ...created, status: 'confirmed', confirmed_at: new Date(Date.parse(created.created_at) + 1500).toISOString() });
    expect(Object.keys(after.body).sort()).toEqual([...VIEW_KEYS, 'confirmed_at'].sort());
    expect(t.balance('@acme')).toBe(units('50100.25'));
    expect(t.balance('@alice')).toBe(units('899.75'));
  });

  it('credits a sandbox account addressed by its 0x address', async () => {
    const acme = t.world.store.accountByHandle('@acme')!.public_key;
    const res = await t.as('@alice').send({ to: acme, amount: '5' });
    expect(res.body.to).toBe(acme);
    await t.sandbox.advance(1500);
    expect(t.balance('@acme')).toBe(units('50005'));
    // @acme sees it as the receiver
    expect((await t.as('@acme').get(`/v1/transfers/${res.body.transfer_id}`)).body.status).toBe('confirmed');
  });

  it('a transfer to 0x…dEaD (any case) is accepted, then fails at T + block time and the sender gets the funds back', async () => {
    await t.admin('POST', '/_sandbox/fund', { handle: '@oldwallet', amount: '10' });
    const sent = await t.as('@oldwallet').send({ to: DEAD.toLowerCase(), amount: '10' });
    expect(sent.status).toBe(201);
    expect(sent.body.to).toBe(DEAD.toLowerCase());
    expect(t.balance('@oldwallet')).toBe(0n);
    expectApiError(await t.as('@oldwallet').send({ to: '@alice', amount: '0.000001', confidential: true }), 402, 'insufficient_balance');
    await t.sandbox.advance(1500);
    const got = await t.as('@oldwallet').get(`/v1/transfers/${sent.body.transfer_id}`);
    expect(got.body).toMatchObject({ status: 'failed' });
    expect(got.body).not.toHaveProperty('confirmed_at');
    expect(t.balance('@oldwallet')).toBe(units('10'));
    // The refund is exact: 10 fits again, 10.000001 does not.
    expectApiError(await t.as('@oldwallet').send({ to: DEAD, amount: '10.000001' }), 402, 'insufficient_balance');
    expect((await t.as('@oldwallet').send({ to: DEAD, amount: '10' })).status).toBe(201);
  });

  it('emits transfer.initiated / confirmed / failed events with the settlement instant', async () => {
    const events: Array<[string, string, number]> = [];
    for (const type of ['transfer.initiated', 'transfer.confirmed', 'transfer.failed'] as const) {
      t.world.store.on(type, (e) => void events.push([e.type, e.transfer.to, e.at]));
    }
    const a = (await t.as('@alice').send({ to: '@acme', amount: '1' })).body;
    const b = (await t.as('@alice').send({ to: DEAD, amount: '1' })).body;
    await t.sandbox.advance(1500);
    const ms = (iso: string) => Date.parse(iso);
    expect(events).toEqual([
      ['transfer.initiated', '@acme', ms(a.created_at)],
      ['transfer.initiated', DEAD, ms(b.created_at)],
      ['transfer.confirmed', '@acme', ms(a.created_at) + 1500],
      ['transfer.failed', DEAD, ms(b.created_at) + 1500],
    ]);
  });
});

describe('Idempotency-Key', () => {
  let t: TestSandbox;
  beforeEach(async () => {
    t = await startSandbox();
  });
  afterEach(async () => {
    await t.close();
  });

  it('same key and body: the first answer again, with Idempotent-Replayed; nothing is sent twice', async () => {
    const h = { headers: { 'idempotency-key': 'order-1' } };
    const first = await t.as('@alice').send({ to: '@acme', amount: '10', memo: 'm' }, h);
    const again = await t.as('@alice').send({ memo: 'm', amount: '10', to: '@acme' }, h); // key order does not matter
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(t.balance('@alice')).toBe(units('990'));
    expect(t.world.store.countTransfers(t.accountId('@alice'))).toBe(1);
  });

  it('same key, another body: 409 idempotency_key_reused', async () => {
    const h = { headers: { 'idempotency-key': 'order-2' } };
    await t.as('@alice').send({ to: '@acme', amount: '10' }, h);
    expectApiError(await t.as('@alice').send({ to: '@acme', amount: '11' }, h), 409, 'idempotency_key_reused');
    expect(t.balance('@alice')).toBe(units('990'));
  });

  it('replays an error answer too, and keys are per account', async () => {
    const h = { headers: { 'idempotency-key': 'k' } };
    const first = await t.as('@alice').send({ to: '@nobody', amount: '1' }, h);
    expectApiError(first, 404, 'recipient_not_found');
    const again = await t.as('@alice').send({ to: '@nobody', amount: '1' }, h);
    expect(again.status).toBe(404);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const acme = await t.as('@acme').send({ to: '@alice', amount: '1' }, h);
    expect(acme.status).toBe(201);
  });

  it('concurrent requests with one key create one transfer', async () => {
    const h = { headers: { 'idempotency-key': 'burst' } };
    const results = await Promise.all(Array.from({ length: 20 }, () => t.as('@alice').send({ to: '@acme', amount: '1' }, h)));
    expect(new Set(results.map((r) => r.body.transfer_id)).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect(t.balance('@alice')).toBe(units('999'));
  });

  it('a malformed key is 400; the state keeps only a hash of the request', async () => {
    expectApiError(await t.as('@alice').send({ to: '@acme', amount: '1' }, { headers: { 'idempotency-key': 'a'.repeat(256) } }), 400, 'invalid_request');
    await t.as('@alice').send({ to: '@acme', amount: '4321.123456', memo: 'secret-memo' }, { headers: { 'idempotency-key': 'h' } });
    const rows = JSON.stringify(t.world.store.tableRows('idempotency'));
    expect(rows).not.toMatch(/4321\.123456|4321123456|secret-memo/);
    expect([...t.world.store.idempotencyRecords()][0]!.request_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('memory keeps no answer of an Idempotency-Key (its row does); a replay, in the same batch or later, answers the first answer whole', async () => {
    const key = (k: string) => ({ headers: { 'idempotency-key': k } });
    // Two requests of one event-loop turn: the second replays a record its batch has not committed yet.
    const [first, same] = await Promise.all([t.as('@alice').send({ to: '@acme', amount: '1' }, key('k1')), t.as('@alice').send({ to: '@acme', amount: '1' }, key('k1'))]);
    await t.as('@alice').send({ to: '@acme', amount: '2' }, key('k2'));
    const later = await t.as('@alice').send({ to: '@acme', amount: '1' }, key('k1'));
    for (const r of [same, later]) {
      expect(r.status).toBe(201);
      expect(r.text).toBe(first.text);
      expect(r.headers.get('idempotent-replayed')).toBe('true');
    }
    // What memory keeps per key: what a new request is checked against, not the answer (hundreds of bytes a request).
    for (const entry of t.world.store.idempotencyRecords()) expect(Object.keys(entry).sort()).toEqual(['created_at', 'key', 'request_hash', 'scope', 'status']);
  });
});

describe('GET /v1/transfers/{id}', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startSandbox();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers the sender and the receiver; anyone else and unknown ids get 404 transfer_not_found', async () => {
    const created = (await t.as('@alice').send({ to: '@acme', amount: '1' })).body;
    const bySender = await t.as('@alice').get(`/v1/transfers/${created.transfer_id}`);
    expect(bySender.status).toBe(200);
    expect(bySender.body).toEqual(created);
    // The receiver sees the same transfer, with the amount encrypted to its own viewing key.
    const byReceiver = (await t.as('@acme').get(`/v1/transfers/${created.transfer_id}`)).body;
    expect({ ...byReceiver, amount_ciphertext: undefined }).toEqual({ ...created, amount_ciphertext: undefined });
    expect(byReceiver.amount_ciphertext).toEqual(expect.any(String));
    expect(byReceiver.amount_ciphertext).not.toBe(created.amount_ciphertext);
    expectApiError(await t.as('@bob').get(`/v1/transfers/${created.transfer_id}`), 404, 'transfer_not_found');
    expectApiError(await t.as('@alice').get('/v1/transfers/tr_doesnotexist'), 404, 'transfer_not_found');
  });
});

describe('GET /v1/transfers', () => {
  let t: TestSandbox;
  const ids: string[] = []; // oldest first
  const created: string[] = [];
  beforeAll(async () => {
    t = await startSandbox({ blockTimeMs: 3_600_000 });
    // 25 sends by @alice and 2 received from @acme, ten sandbox seconds apart.
    for (let i = 0; i < 27; i++) {
      const res = i === 5 || i === 20 ? await t.as('@acme').send({ to: '@alice', amount: '1' }) : await t.as('@alice').send({ to: '@acme', amount: '1' });
      ids.push(res.body.transfer_id);
      created.push(res.body.created_at);
      await t.sandbox.advance(10_000);
    }
    // The first 10 settle; the 11th is 10 sandbox seconds short of it.
    await t.sandbox.advance(3_600_000 + 9 * 10_000 - 27 * 10_000);
  });
  afterAll(async () => {
    await t.close();
  });
  const idsOf = (res: { body: { transfers: Array<{ transfer_id: string }> } }) => res.body.transfers.map((x) => x.transfer_id);
  const newest = () => [...ids].reverse();

  it('defaults to 20 newest first, with limit, offset and has_more', async () => {
    const res = await t.as('@alice').get('/v1/transfers');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['has_more', 'limit', 'offset', 'transfers']);
    expect(res.body).toMatchObject({ limit: 20, offset: 0, has_more: true });
    expect(idsOf(res)).toEqual(newest().slice(0, 20));
    const page2 = await t.as('@alice').get('/v1/transfers?limit=20&offset=20');
    expect(idsOf(page2)).toEqual(newest().slice(20));
    expect(page2.body).toMatchObject({ limit: 20, offset: 20, has_more: false });
    const exact = await t.as('@alice').get('/v1/transfers?limit=27');
    expect(exact.body.has_more).toBe(false);
    expect((await t.as('@alice').get('/v1/transfers?limit=26')).body.has_more).toBe(true);
    expect(idsOf(await t.as('@alice').get('/v1/transfers?offset=500'))).toEqual([]);
    expect(res.text).not.toMatch(/"amount"|"memo"/);
  });

  it('includes received transfers, and only the account’s own', async () => {
    const acme = await t.as('@acme').get('/v1/transfers?limit=100');
    expect(acme.body.transfers).toHaveLength(27);
    const bob = await t.as('@bob').get('/v1/transfers');
    expect(bob.body).toEqual({ transfers: [], limit: 20, offset: 0, has_more: false });
  });

  it('filters by status', async () => {
    const confirmed = await t.as('@alice').get('/v1/transfers?status=confirmed&limit=100');
    expect(idsOf(confirmed)).toEqual(ids.slice(0, 10).reverse());
    const pending = await t.as('@alice').get('/v1/transfers?status=pending&limit=5&offset=2');
    expect(idsOf(pending)).toEqual(ids.slice(10).reverse().slice(2, 7));
    expect(pending.body.has_more).toBe(true);
    const lastPage = await t.as('@alice').get('/v1/transfers?status=pending&limit=5&offset=12');
    expect(idsOf(lastPage)).toEqual(ids.slice(10).reverse().slice(12));
    expect(lastPage.body.has_more).toBe(false);
    expect(idsOf(await t.as('@alice').get('/v1/transfers?status=failed'))).toEqual([]);
  });

  it('filters by time: created strictly after `from` and strictly before `to`', async () => {
    const from = encodeURIComponent(created[3]!);
    const to = encodeURIComponent(created[8]!);
    const res = await t.as('@alice').get(`/v1/transfers?from=${from}&to=${to}`);
    expect(idsOf(res)).toEqual(ids.slice(4, 8).reverse());
    // With an offset instead of Z, and combined with status and paging.
    const fromOffset = new Date(Date.parse(created[3]!)).toISOString().replace('Z', '+00:00');
    const res2 = await t.as('@alice').get(`/v1/transfers?from=${encodeURIComponent(fromOffset)}&status=confirmed&limit=2`);
    expect(idsOf(res2)).toEqual([ids[9], ids[8]]);
    expect(res2.body.has_more).toBe(true);
    // An unencoded + arrives as a space and is still understood.
    const plus = new Date(Date.parse(created[25]!) + 3_600_000).toISOString().replace('Z', '+01:00');
    const res3 = await t.as('@alice').get(`/v1/transfers?from=${plus}`);
    expect(idsOf(res3)).toEqual([ids[26]]);
  });

  it.each([
    ['limit=0', 'limit must be a whole number from 1 to 100'],
    ['limit=101', 'limit must be a whole number from 1 to 100'],
    ['limit=abc', 'limit must be a whole number from 1 to 100'],
    ['limit=1.5', 'limit must be a whole number from 1 to 100'],
    ['limit=1&limit=2', 'limit must be given at most once'],
    ['offset=-1', 'offset must be a whole number from 0 to 9007199254740991'],
    ['offset=x', 'offset must be a whole number from 0 to 9007199254740991'],
    ['status=done', 'status must be one of pending, confirmed, failed'],
    ['status=', 'status must be one of pending, confirmed, failed'],
    ['from=yesterday', 'from must be an ISO 8601 date, or a date and time with an offset, in the years 0000 to 9999 (UTC), such as 2025-01-31 or 2025-01-31T12:00:00Z'],
    ['from=2025-02-30', 'from must be an ISO 8601 date, or a date and time with an offset, in the years 0000 to 9999 (UTC), such as 2025-01-31 or 2025-01-31T12:00:00Z'],
    ['to=2025-01-31T12:00:00', 'to must be an ISO 8601 date, or a date and time with an offset, in the years 0000 to 9999 (UTC), such as 2025-01-31 or 2025-01-31T12:00:00Z'],
    ['to=2025-01-31T25:00:00Z', 'to must be an ISO 8601 date, or a date and time with an offset, in the years 0000 to 9999 (UTC), such as 2025-01-31 or 2025-01-31T12:00:00Z'],
  ])('400 invalid_request for ?%s', async (query, message) => {
    const res = await t.as('@alice').get(`/v1/transfers?${query}`);
    expectApiError(res, 400, 'invalid_request');
    expect(res.body.error.message).toBe(message);
  });
});
