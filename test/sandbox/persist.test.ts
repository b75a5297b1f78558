import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, SandboxStartError } from '../../src/sandbox/index.js';
import { Persister, writeFileAtomic } from '../../src/sandbox/persist.js';
import { startSandbox, units } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sbx-persist-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const mode = (p: string) => statSync(p).mode & 0o777;

describe('writeFileAtomic', () => {
  it('writes the content with mode 0600 and leaves no temp file', async () => {
    const p = join(dir, 'state.json');
    await writeFileAtomic(p, '{"a":1}');
    expect(readFileSync(p, 'utf8')).toBe('{"a":1}');
    expect(mode(p)).toBe(0o600);
    writeFileSync(p, 'old', { mode: 0o644 });
    await writeFileAtomic(p, 'new');
    expect(readFileSync(p, 'utf8')).toBe('new');
    expect(mode(p)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('a reader only ever sees a whole version, never a partial write', async () => {
    const p = join(dir, 'state.json');
    const versions = ['a', 'b', 'c'].map((c) => JSON.stringify({ fill: c.repeat(2_000_000) }));
    await writeFileAtomic(p, versions[0]!);
    let reads = 0;
    let writing = true;
    const reader = (async () => {
      while (writing) {
        const text = readFileSync(p, 'utf8');
        expect(versions).toContain(text);
        reads++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 0; i < 12; i++) await writeFileAtomic(p, versions[i % 3]!);
    writing = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });
});

describe('Persister', () => {
  it('coalesces a burst of changes into one write, and flush() writes the latest state', async () => {
    const p = join(dir, 'state.json');
    let version = 0;
    const persister = new Persister(p, () => JSON.stringify({ version }), { minIntervalMs: 60_000 });
    for (let i = 0; i < 100; i++) {
      version = i;
      persister.markDirty();
    }
    expect(persister.writes).toBe(0); // nothing is written synchronously per change
    await persister.flush();
    expect(persister.writes).toBe(1);
    expect(JSON.parse(readFileSync(p, 'utf8'))).toEqual({ version: 99 });
    await persister.flush();
    expect(persister.writes).toBe(1); // nothing new: no write
  });
});

describe('state file', () => {
  it('holds no plaintext amount, balance or memo, and both files are 0600', async () => {
    const statePath = join(dir, 'sandbox', 'state.json');
    const t = await startSandbox({ ephemeral: false, statePath });
    expect((await t.admin('POST', '/_sandbox/fund', { handle: '@alice', amount: '7341.902817', asset: 'USDG' })).status).toBe(200);
    const sent = await t.as('@alice').send({ to: '@acme', amount: '12.345678', memo: 'canary-memo-QX7' });
    expect(sent.status).toBe(201);
    await t.sandbox.advance(1500);
    expect(t.balance('@alice')).toBe(units('8329.557139'));
    expect(t.balance('@acme')).toBe(units('50012.345678'));
    await t.close();

    const text = readFileSync(statePath, 'utf8');
    expect(text).toContain(sent.body.transfer_id); // the transfer is there...
    for (const needle of [
      '7341.902817', '7341902817', '12.345678', '12345678', '8329.557139', '8329557139',
      '50012.345678', '50012345678', '1000000000', '1000.00', '"1000"', ':1000,', '250000000', '50000000000',
      'canary-memo-QX7', '"amount"', '"memo"',
    ]) {
      expect(text, `state file contains ${needle}`).not.toContain(needle);
    }
    expect(mode(statePath)).toBe(0o600);
    expect(mode(`${statePath}.key`)).toBe(0o600);
    expect(readFileSync(`${statePath}.key`, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(mode(join(dir, 'sandbox'))).toBe(0o700);
    expect(readdirSync(join(dir, 'sandbox')).sort()).toEqual(['state.json', 'state.json.key']);
  });

  it('a restart keeps accounts, keys, transfers, balances and the clock; pending transfers still settle', async () => {
    const statePath = join(dir, 'state.json');
    const first = await startSandbox({ ephemeral: false, statePath, blockTimeMs: 10_000 });
    expect(first.sandbox.restored).toBe(false);
    const alice = first.keyOf('@alice');
    const me = (await first.as('@alice').get('/v1/accounts/me')).body;
    const confirmed = await first.as('@alice').send({ to: '@acme', amount: '1.5' });
    await first.sandbox.advance(10_000);
    const pending = await first.as('@alice').send({ to: '@bob', amount: '2.25', asset: 'USDG' });
    const failed = await first.as('@alice').send({ to: '0x000000000000000000000000000000000000dEaD', amount: '3' });
    const created = await first.admin('POST', '/_sandbox/keys', { account: '@acme', name: 'ci' });
    await first.admin('POST', `/_sandbox/keys/${created.body.key_id}/revoke`);
    await first.sandbox.advance(5_000); // both still pending: 5 s into a 10 s block
    const offset = (await first.admin('GET', '/_sandbox/clock')).body.offset_ms;
    expect(offset).toBe(15_000);
    await first.close();

    const second = await startSandbox({ ephemeral: false, statePath, blockTimeMs: 10_000 });
    try {
      expect(second.sandbox.restored).toBe(true);
      expect(second.sandbox.seeded).toEqual([]);
      const res = await second.call('GET', '/v1/accounts/me', { key: alice });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(me);
      expect((await second.admin('GET', '/_sandbox/clock')).body.offset_ms).toBe(15_000);
      // The revoked key stays revoked.
      expect((await second.call('GET', '/v1/accounts/me', { key: created.body.key })).status).toBe(401);

      const list = await second.call('GET', '/v1/transfers', { key: alice });
      expect(list.body.transfers.map((t: { transfer_id: string }) => t.transfer_id)).toEqual([
        failed.body.transfer_id,
        pending.body.transfer_id,
        confirmed.body.transfer_id,
      ]);
      expect(list.body.transfers.map((t: { status: string }) => t.status)).toEqual(['pending', 'pending', 'confirmed']);
      // Reserved: 1000 - 1.5 - 2.25 - 3
      expect(second.balance('@alice')).toBe(units('993.25'));
      expect(second.balance('@alice', 'USDC')).toBe(units('250', 'USDC'));
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

  it('refuses a state file whose key file is missing, and a corrupt or tampered state', async () => {
    const statePath = join(dir, 'state.json');
    const t = await startSandbox({ ephemeral: false, statePath });
    await t.close();
    const good = readFileSync(statePath, 'utf8');
    const key = readFileSync(`${statePath}.key`);

    unlinkSync(`${statePath}.key`);
    await expect(createSandbox({ port: 0, statePath })).rejects.toMatchObject({ code: 'key_missing' });
    writeFileSync(`${statePath}.key`, key, { mode: 0o600 });

    writeFileSync(statePath, '{"format":"svc-sandbox-state","version":1', { mode: 0o600 });
    const err = await createSandbox({ port: 0, statePath }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxStartError);
    expect((err as SandboxStartError).code).toBe('state_unreadable');

    // Move @alice's sealed USDG balance onto @acme's entry: it must not open.
    const snap = JSON.parse(good);
    const [a, b] = [snap.balances[0], snap.balances[2]];
    [a.sealed, b.sealed] = [b.sealed, a.sealed];
    writeFileSync(statePath, JSON.stringify(snap), { mode: 0o600 });
    await expect(createSandbox({ port: 0, statePath })).rejects.toMatchObject({ code: 'state_unreadable' });
  });

  it('--ephemeral writes nothing', async () => {
    const statePath = join(dir, 'state.json');
    const t = await startSandbox({ ephemeral: true, statePath });
    await t.as('@alice').send({ to: '@acme', amount: '1' });
    await t.close();
    expect(readdirSync(dir)).toEqual([]);
  });
});
