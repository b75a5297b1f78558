// The sandbox's database: what it holds (nothing in plaintext), where (0600 in 0700), what a
// restart keeps, that every acknowledged write is committed before its answer, that a failed
// request leaves nothing behind, one sandbox per file, schema versions, and the one-time import
// of the earlier JSON state (test/fixtures/legacy-v1).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, SandboxStartError } from '../../src/sandbox/index.js';
import { dbBytes, dbExec, dbRecords, onDisk, startSandbox, units } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sbx-store-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const mode = (p: string) => statSync(p).mode & 0o777;
const FIXTURE = resolve(import.meta.dirname, '../fixtures/legacy-v1');

describe('the database file', () => {
  it('holds no plaintext amount, balance or memo; 0600 files in a 0700 directory', async () => {
    const statePath = join(dir, 'sandbox', 'state.db');
    const t = await startSandbox({ ephemeral: false, statePath });
    expect((await t.admin('POST', '/_sandbox/fund', { handle: '@alice', amount: '7341.902817', asset: 'USDG' })).status).toBe(200);
    expect((await t.admin('POST', '/_sandbox/fund', { handle: '@alice', amount: '4185.092736', asset: 'USDC' })).status).toBe(200);
    const sent = await t.as('@alice').send({ to: '@acme', amount: '12.345678', memo: 'canary-memo-QX7' });
    expect(sent.status).toBe(201);
    await t.sandbox.advance(1500);
    expect(t.balance('@alice')).toBe(units('8329.557139'));
    expect(t.balance('@acme')).toBe(units('50012.345678'));
    expect(t.balance('@alice', 'USDC')).toBe(units('4435.092736', 'USDC'));
    // Checked while it runs (the WAL holds the newest pages) and after it stops.
    for (const phase of ['running', 'stopped']) {
      if (phase === 'stopped') await t.close();
      const bytes = dbBytes(statePath);
      expect(bytes).toContain(sent.body.transfer_id); // the transfer is there...
      for (const needle of [
        '7341.902817', '7341902817', '12.345678', '12345678', '8329.557139', '8329557139', '50012.345678', '50012345678',
        // every balance @alice held (the seeded round ones are no canary: they turn up by chance)
        '8341.902817', '8341902817', '4185.092736', '4185092736', '4435.092736', '4435092736',
        'canary-memo-QX7', '"amount"', '"memo"',
      ]) {
        expect(bytes, `${phase}: the database contains ${needle}`).not.toContain(needle);
      }
    }
    expect(mode(statePath)).toBe(0o600);
    expect(mode(`${statePath}.key`)).toBe(0o600);
    expect(readFileSync(`${statePath}.key`, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(mode(join(dir, 'sandbox'))).toBe(0o700);
    for (const f of readdirSync(join(dir, 'sandbox'))) expect(mode(join(dir, 'sandbox', f)), f).toBe(0o600);
    expect(readdirSync(join(dir, 'sandbox')).filter((f) => !f.endsWith('-wal') && !f.endsWith('-shm')).sort()).toEqual(['state.db', 'state.db.key']);
  });

  it('every acknowledged write is on disk before its answer arrives', async () => {
    const statePath = join(dir, 'state.db');
    const t = await startSandbox({ ephemeral: false, statePath }, { internals: { flushEveryMs: 3_600_000 } });
    try {
      const sent = await t.as('@alice').send({ to: '@acme', amount: '1' }, { headers: { 'idempotency-key': 'disk-1' } });
      expect(sent.status).toBe(201);
      const rows = onDisk<{ transfer_id: string }>(statePath, 'SELECT transfer_id FROM transfers');
      expect(rows.map((r) => r.transfer_id)).toContain(sent.body.transfer_id);
      expect(onDisk(statePath, "SELECT key FROM idempotency WHERE key = 'disk-1'")).toHaveLength(1);
      const agent = await t.as('@alice').post('/v1/accounts/me/agents', { name: 'bot', spend_policy: { hitl_threshold_usdc: 1 } });
      expect(onDisk(statePath, 'SELECT agent_account_id FROM policies')).toEqual([{ agent_account_id: agent.body.account_id }]);
    } finally {
      await t.close();
    }
  });

  it('a read writes nothing (key-use counts wait for the periodic flush)', async () => {
    const statePath = join(dir, 'state.db');
    const t = await startSandbox({ ephemeral: false, statePath }, { internals: { flushEveryMs: 3_600_000 } });
    try {
      await t.as('@alice').send({ to: '@acme', amount: '1' });
      const size = () => (existsSync(`${statePath}-wal`) ? statSync(`${statePath}-wal`).size : 0);
      const before = [size(), JSON.stringify(onDisk(statePath, 'SELECT * FROM api_keys'))];
      for (let i = 0; i < 30; i++) {
        expect((await t.as('@alice').get('/v1/transfers')).status).toBe(200);
        expect((await t.as('@alice').get('/v1/accounts/me/balances')).status).toBe(200);
      }
      expect([size(), JSON.stringify(onDisk(statePath, 'SELECT * FROM api_keys'))]).toEqual(before);
      t.world.flush(); // now the counts are written
      const alice = onDisk<{ record: string }>(statePath, 'SELECT record FROM api_keys').map((r) => JSON.parse(r.record)).find((k) => k.request_count > 0);
      expect(alice.request_count).toBe(61);
    } finally {
      await t.close();
    }
  });

  it('a request that fails halfway leaves nothing behind (its transaction rolls back)', async () => {
    const statePath = join(dir, 'state.db');
    const logs: string[] = [];
    const t = await startSandbox({ ephemeral: false, statePath, log: (l) => logs.push(l) });
    try {
      const sub = await t.as('@alice').post('/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['transfer.initiated'] });
      expect(sub.status).toBe(201);
      const before = { list: (await t.as('@alice').get('/v1/transfers')).body, balance: t.balance('@alice') };
      // Break the store underneath: the event this transfer fires cannot be written.
      dbExec(statePath, 'DROP TABLE webhook_events');
      const res = await t.as('@alice').send({ to: '@acme', amount: '5' }, { unchecked: true });
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('internal_error');
      expect(JSON.stringify(res.body)).not.toMatch(/at |webhook_events|sqlite/i); // no internals leak
      expect(onDisk(statePath, 'SELECT transfer_id FROM transfers')).toHaveLength(0);
      expect(t.balance('@alice')).toBe(before.balance);
      expect((await t.as('@alice').get('/v1/transfers')).body).toEqual(before.list);
      expect(logs.some((l) => l.includes('rolled back'))).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('50 parallel sends of 10 against a balance of 100: exactly 10 accepted, balance 0, all on disk', async () => {
    const statePath = join(dir, 'state.db');
    const t = await startSandbox({ ephemeral: false, statePath });
    try {
      // @oldwallet is verified and holds nothing: give it exactly 100.
      const key = (await t.admin('POST', '/_sandbox/keys', { account: '@oldwallet' })).body.key;
      expect((await t.admin('POST', '/_sandbox/fund', { handle: '@oldwallet', amount: '100' })).status).toBe(200);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => t.call('POST', '/v1/transfers', { key, body: { to: '@acme', amount: '10' }, headers: { 'idempotency-key': `par-${i}` } })),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(10);
      expect(results.filter((r) => r.status === 402)).toHaveLength(40);
      expect(t.balance('@oldwallet')).toBe(0n);
      expect(onDisk(statePath, 'SELECT transfer_id FROM transfers')).toHaveLength(10);
      expect(onDisk(statePath, 'SELECT key FROM idempotency')).toHaveLength(50);
    } finally {
      await t.close();
    }
  });
});

describe('the export', () => {
  it('is the whole state without a sealed value, a ciphertext, a key hash, a secret or an amount', async () => {
    const t = await startSandbox();
    try {
      expect((await t.admin('POST', '/_sandbox/fund', { handle: '@alice', amount: '7341.902817' })).status).toBe(200);
      await t.as('@alice').send({ to: '@acme', amount: '12.345678', memo: 'canary-memo-QX7' });
      const sub = await t.as('@alice').post('/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['transfer.confirmed'] });
      await t.sandbox.advance(1500);
      await t.sandbox.webhooksIdle(); // the delivery attempt (refused) has finished
      const doc = (await t.admin('GET', '/_sandbox/export')).body; // request() checks it declares every field
      expect(doc).toEqual(t.sandbox.export());
      const text = JSON.stringify(doc);
      for (const needle of ['sealed', 'ciphertext', '"hash"', 'secret', sub.body.secret, '7341.902817', '7341902817', '8329.557139', '8329557139', '12.345678', '12345678', 'canary-memo', t.keyOf('@alice')]) {
        expect(text, needle).not.toContain(needle);
      }
      expect(doc.transfers[0]).toMatchObject({ status: 'confirmed', has_memo: true });
      expect(doc.balances.find((b: { asset: string }) => b.asset === 'USDG').version).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });
});

describe('restarts', () => {
  it('keep accounts, keys, transfers, balances, idempotency and the clock; pending transfers still settle', async () => {
    const statePath = join(dir, 'state.db');
    const first = await startSandbox({ ephemeral: false, statePath, blockTimeMs: 10_000 });
    expect(first.sandbox.restored).toBe(false);
    const alice = first.keyOf('@alice');
    const me = (await first.as('@alice').get('/v1/accounts/me')).body;
    const confirmed = await first.as('@alice').send({ to: '@acme', amount: '1.5' }, { headers: { 'idempotency-key': 'restart-1' } });
    await first.sandbox.advance(10_000);
    const pending = await first.as('@alice').send({ to: '@bob', amount: '2.25', asset: 'USDG' });
    const failed = await first.as('@alice').send({ to: '0x000000000000000000000000000000000000dEaD', amount: '3' });
    const created = await first.admin('POST', '/_sandbox/keys', { account: '@acme', name: 'ci' });
    await first.admin('POST', `/_sandbox/keys/${created.body.key_id}/revoke`);
    await first.sandbox.advance(5_000); // both still pending: 5 s into a 10 s block
    expect((await first.admin('GET', '/_sandbox/clock')).body.offset_ms).toBe(15_000);
    const exported = first.sandbox.export();
    await first.close();

    const second = await startSandbox({ ephemeral: false, statePath, blockTimeMs: 10_000 });
    try {
      expect(second.sandbox.restored).toBe(true);
      expect(second.sandbox.seeded).toEqual([]);
      const { clock: _a, ...now } = second.sandbox.export();
      const { clock: _b, ...then } = exported;
      expect(now).toEqual(then); // the whole state, as it was
      const res = await second.call('GET', '/v1/accounts/me', { key: alice });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(me);
      expect((await second.admin('GET', '/_sandbox/clock')).body.offset_ms).toBe(15_000);
      expect((await second.call('GET', '/v1/accounts/me', { key: created.body.key })).status).toBe(401); // still revoked
      // The idempotency record came back with its effect: a replay is the first answer, no new transfer.
      const replay = await second.call('POST', '/v1/transfers', { key: alice, body: { to: '@acme', amount: '1.5' }, headers: { 'idempotency-key': 'restart-1' } });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(confirmed.body);

      const list = await second.call('GET', '/v1/transfers', { key: alice });
      expect(list.body.transfers.map((t: { transfer_id: string }) => t.transfer_id)).toEqual([failed.body.transfer_id, pending.body.transfer_id, confirmed.body.transfer_id]);
      expect(second.balance('@alice')).toBe(units('993.25')); // reserved: 1000 - 1.5 - 2.25 - 3
      expect(second.balance('@acme')).toBe(units('50001.5'));

      await second.sandbox.advance(5_000);
      const after = await second.call('GET', `/v1/transfers/${pending.body.transfer_id}`, { key: alice });
      expect(after.body.status).toBe('confirmed');
      expect(after.body.confirmed_at).toBe(new Date(Date.parse(pending.body.created_at) + 10_000).toISOString());
      expect((await second.call('GET', `/v1/transfers/${failed.body.transfer_id}`, { key: alice })).body.status).toBe('failed');
      expect(second.balance('@alice')).toBe(units('996.25')); // the failed 3 came back
      expect(second.balance('@bob')).toBe(units('102.25'));
    } finally {
      await second.close();
    }
  });

  it('--ephemeral writes nothing', async () => {
    const statePath = join(dir, 'state.db');
    const t = await startSandbox({ ephemeral: true, statePath });
    await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.close();
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('refusals', () => {
  it('a second sandbox on the same database: a clear error; a lock left by a dead process is taken over', async () => {
    const statePath = join(dir, 'state.db');
    const t = await startSandbox({ ephemeral: false, statePath });
    try {
      const err = (await createSandbox({ port: 0, statePath }).catch((e: unknown) => e)) as SandboxStartError;
      expect(err).toBeInstanceOf(SandboxStartError);
      expect(err.code).toBe('state_locked');
      expect(err.message).toBe(`the sandbox database ${statePath} is in use by another sandbox (process ${process.pid})`);
    } finally {
      await t.close();
    }
    expect(existsSync(`${statePath}.lock`)).toBe(false);
    writeFileSync(`${statePath}.lock`, '999999999\n'); // as a SIGKILLed sandbox leaves it
    const again = await startSandbox({ ephemeral: false, statePath });
    expect(again.sandbox.restored).toBe(true);
    await again.close();
  });

  it('a database from a newer svc is refused and left unchanged', async () => {
    const statePath = join(dir, 'state.db');
    await (await startSandbox({ ephemeral: false, statePath })).close();
    dbExec(statePath, 'PRAGMA user_version = 99');
    const before = readFileSync(statePath);
    const err = (await createSandbox({ port: 0, statePath }).catch((e: unknown) => e)) as SandboxStartError;
    expect(err.code).toBe('state_too_new');
    expect(err.message).toMatch(/written by a newer svc \(database schema 99; this svc knows schemas up to \d+\); it was not changed/);
    expect(readFileSync(statePath).equals(before)).toBe(true);
  });

  it('refuses a missing key file, a wrong key, a file that is not a sandbox database, and sealed values moved between rows', async () => {
    const statePath = join(dir, 'state.db');
    const t = await startSandbox({ ephemeral: false, statePath });
    await t.close();
    const key = readFileSync(`${statePath}.key`);

    unlinkSync(`${statePath}.key`);
    await expect(createSandbox({ port: 0, statePath })).rejects.toMatchObject({ code: 'key_missing' });
    writeFileSync(`${statePath}.key`, `${'cd'.repeat(32)}\n`, { mode: 0o600 });
    await expect(createSandbox({ port: 0, statePath })).rejects.toMatchObject({ code: 'state_unreadable', message: expect.stringMatching(/does not open with its key file/) });
    writeFileSync(`${statePath}.key`, key, { mode: 0o600 });

    // @alice's sealed USDG balance copied onto @acme's row: it must not open there.
    const rows = dbRecords(statePath, 'accounts');
    const [alice, acme] = [rows[0].account_id, rows[1].account_id];
    dbExec(statePath, `UPDATE balances SET sealed = (SELECT sealed FROM balances WHERE account_id = '${alice}' AND asset = 'USDG') WHERE account_id = '${acme}'`);
    await expect(createSandbox({ port: 0, statePath })).rejects.toMatchObject({ code: 'state_unreadable' });

    const other = join(dir, 'other.db');
    dbExec(other, 'CREATE TABLE notes (body TEXT)');
    writeFileSync(`${other}.key`, key);
    await expect(createSandbox({ port: 0, statePath: other })).rejects.toMatchObject({ code: 'state_unreadable', message: expect.stringMatching(/not a sandbox's/) });
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'x'.repeat(4096));
    writeFileSync(`${junk}.key`, key);
    await expect(createSandbox({ port: 0, statePath: junk })).rejects.toMatchObject({ code: 'state_unreadable' });
  });
});

describe('the earlier JSON state file (test/fixtures/legacy-v1)', () => {
  const fixtureCopy = (name = 'state.json') => {
    const sandboxDir = join(dir, 'sandbox');
    mkdirSync(sandboxDir, { recursive: true });
    copyFileSync(join(FIXTURE, 'state.json'), join(sandboxDir, name));
    copyFileSync(join(FIXTURE, 'state.json.key'), join(sandboxDir, `${name}.key`));
    return sandboxDir;
  };
  const ALICE = 'svc_test_AjIdnoT8vnyewB1UulPZA1DLE1VbdyrD';
  // The fixture carries its own time: the sandbox starts when the file was saved, so its
  // 24-hour idempotency record is as fresh as on the day it was written, whatever today is.
  const savedAt = Date.parse(JSON.parse(readFileSync(join(FIXTURE, 'state.json'), 'utf8')).saved_at);
  const atFixtureTime = { internals: { realNow: () => savedAt } };

  it('is imported once into the database beside it, and kept as a backup', async () => {
    const sandboxDir = fixtureCopy();
    const statePath = join(sandboxDir, 'state.db');
    const t = await startSandbox({ ephemeral: false, statePath, legacyStatePath: join(sandboxDir, 'state.json') }, atFixtureTime);
    try {
      expect(t.sandbox.restored).toBe(true);
      expect(readdirSync(sandboxDir).filter((f) => !f.includes('.db-') && !f.endsWith('.lock')).sort()).toEqual(['state.db', 'state.db.key', 'state.json.v1.bak', 'state.json.v1.bak.key']);
      expect((await t.call('GET', '/v1/accounts/me', { key: ALICE })).body.handle).toBe('@alice');
      const transfers = (await t.call('GET', '/v1/transfers', { key: ALICE })).body.transfers;
      expect(transfers.map((x: { transfer_id: string; status: string }) => [x.transfer_id, x.status])).toEqual([
        ['tr_kP8KJp29uCdJPFYxWbya5Bdi', expect.stringMatching(/pending|confirmed/)], // overdue: it may have settled on load
        ['tr_ipCF1Lq5DXFMfxo5xaDWoHeb', 'confirmed'],
      ]);
      expect(t.balance('@alice')).toBe(units('984.5')); // 1000 - 12.5 - 3, opened with the same key file
      const agents = (await t.call('GET', '/v1/accounts/me/agents', { key: ALICE })).body.agents;
      expect(agents).toEqual([expect.objectContaining({ handle: '@alice/bot', status: 'active' })]);
      expect((await t.call('GET', '/v1/webhooks', { key: ALICE })).body.webhooks.map((w: { webhook_id: string }) => w.webhook_id)).toEqual(['wh_ZIL3kAXQrice6sWyGrf0']);
      // Its idempotency record came along: the same key replays the first answer.
      const replay = await t.call('POST', '/v1/transfers', { key: ALICE, body: { to: '@acme', amount: '12.5', memo: 'fixture memo' }, headers: { 'idempotency-key': 'fixture-key-1' } });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.transfer_id).toBe('tr_ipCF1Lq5DXFMfxo5xaDWoHeb');
    } finally {
      await t.close();
    }
    // Once: the next start reads the database (the JSON is no longer where it was).
    const again = await startSandbox({ ephemeral: false, statePath, legacyStatePath: join(sandboxDir, 'state.json') }, atFixtureTime);
    expect(again.sandbox.restored).toBe(true);
    expect(again.balance('@alice')).toBe(units('984.5'));
    await again.close();
  });

  it('--state pointing at a JSON state file converts it in place; answers remembered with nulls replay without them', async () => {
    const sandboxDir = fixtureCopy('mine.json');
    const path = join(sandboxDir, 'mine.json');
    // As a sandbox from before "never null" remembered the answer.
    const snap = JSON.parse(readFileSync(path, 'utf8'));
    snap.idempotency[0].body = snap.idempotency[0].body.replace('"asset"', '"confirmed_at":null,"asset"');
    writeFileSync(path, JSON.stringify(snap));
    const t = await startSandbox({ ephemeral: false, statePath: path }, atFixtureTime);
    try {
      expect(readFileSync(path).subarray(0, 15).toString()).toBe('SQLite format 3');
      expect(existsSync(`${path}.v1.bak`)).toBe(true);
      const replay = await t.call('POST', '/v1/transfers', { key: ALICE, body: { to: '@acme', amount: '12.5', memo: 'fixture memo' }, headers: { 'idempotency-key': 'fixture-key-1' } });
      expect(replay.status).toBe(201); // request() refuses any null in an answer
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.transfer_id).toBe('tr_ipCF1Lq5DXFMfxo5xaDWoHeb');
      expect(replay.text).not.toContain('null');
    } finally {
      await t.close();
    }
  });

  it('a damaged JSON state is refused and left where it was', async () => {
    const sandboxDir = fixtureCopy();
    writeFileSync(join(sandboxDir, 'state.json'), '{"format":"svc-sandbox-state","version":1');
    const err = (await createSandbox({ port: 0, statePath: join(sandboxDir, 'state.json') }).catch((e: unknown) => e)) as SandboxStartError;
    expect(err.code).toBe('state_unreadable');
    expect(readdirSync(sandboxDir).sort()).toEqual(['state.json', 'state.json.key']);
  });
});
