// Decryption keys in profiles and `svc balance`, through the built CLI.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contexts, encryptTo } from '../../../src/crypto/ciphertext.js';
import { startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';
import { generateViewingKey } from '../../../src/crypto/viewing-key.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { svcIn } from '../../helpers/cli.js';

let t: TestSandbox;
let dks: Map<string, string>;
beforeAll(async () => {
  t = await startTestSandbox();
  dks = new Map(t.sandbox.seeded.map((s) => [s.handle, s.decryptionKey!]));
});
afterAll(() => t.close());

describe('svc balance', () => {
  it('decrypts locally and --verify agrees with the service', async () => {
    const r = await t.svc(['balance']);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'asset\tamount\nUSDG\t1000.00\nUSDC\t250.00\n', '']);
    const v = await t.svc(['balance', '--verify', '--asset', 'usdg']);
    expect([v.code, v.stdout]).toEqual([0, 'asset\tamount\tverified\nUSDG\t1000.00\ttrue\n']);
    // --json: the service's balance entries as they are, plus `amount` where they decrypt here.
    const j = await t.svcJson(['balance']);
    const entry = (asset: string, amount: string) => ({ asset, nonzero: true, version: expect.any(Number), ciphertext: expect.any(String), amount });
    expect(j).toStrictEqual([entry('USDG', '1000.00'), entry('USDC', '250.00')]);
  });

  it('without a decryption key: which assets are non-zero, and how to add the key', async () => {
    const add = await t.svc(['profile', 'add', 'nodk', '--key-stdin', '--base-url', t.url], { input: `${t.keyOf('@alice')}\n` });
    expect(add.code).toBe(0);
    const r = await t.svc(['--profile', 'nodk', 'balance']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('asset\tnonzero\nUSDG\ttrue\nUSDC\ttrue\n');
    expect(r.stderr).toMatch(/^hint: amounts are encrypted to your viewing key; add it with .*--decryption-key-stdin/);
    const v = await t.svc(['--profile', 'nodk', 'balance', '--verify']);
    expect(v.code).toBe(2);
    expect(v.stdout).toBe('');
    expect(v.stderr).toMatch(/^error: --verify needs a decryption key \(no_decryption_key\)\nhint: /);
    // --json without a decryption key: the service's entries, no amount.
    const j = await t.svcJson<Array<Record<string, unknown>>>(['--profile', 'nodk', 'balance']);
    expect(j.map((b) => [b.asset, b.nonzero, 'amount' in b])).toEqual([['USDG', true, false], ['USDC', true, false]]);
  });

  it('an asset the service does not have is refused locally (exit 2); one the account does not hold is not found (exit 4)', async () => {
    const r = await t.svc(['balance', '--asset', 'EURX']);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', 'error: --asset "EURX" must be one of USDG, USDC (invalid_asset)\n']);
    // @acme holds USDG only.
    const none = await t.svc(['balance', '--asset', 'usdc'], { env: { SVC_API_KEY: t.keyOf('@acme'), SVC_DECRYPTION_KEY: dks.get('@acme') } });
    expect([none.code, none.stdout, none.stderr]).toEqual([4, '', 'error: no USDC balance on this account (balance_not_found)\n']);
  });

  it('403 kyc_required for an unverified account (exit 3)', async () => {
    const r = await t.svc(['balance'], { env: { SVC_API_KEY: t.keyOf('@bob'), SVC_DECRYPTION_KEY: dks.get('@bob') } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: @bob has not completed identity verification .*\(kyc_required, request req_\w+\)\n/);
  });

  it('SVC_DECRYPTION_KEY of another account does not decrypt: says so, exit 1', async () => {
    const r = await t.svc(['balance'], { env: { SVC_DECRYPTION_KEY: dks.get('@acme') } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: the USDG balance does not decrypt with this decryption key \(decryption_failed\)\nhint: /);
  });
});

describe('svc profile add with a decryption key', () => {
  it('checks the key against the account viewing key and stores it masked', async () => {
    const ok = await t.svc(['profile', 'add', 'me', '--key-stdin', '--decryption-key-stdin', '--base-url', t.url], {
      input: `${t.keyOf('@alice')}\n${dks.get('@alice')}\n`,
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/decryption key matches the viewing key of @alice/);
    const ls = await t.svcJson<Array<{ name: string; decryption_key: string | null }>>(['profile', 'ls']);
    const me = ls.find((p) => p.name === 'me')!;
    expect(me.decryption_key).toMatch(/^svc_dk_test_\*\*\*\*.{4}$/);
    expect(JSON.stringify(ls)).not.toContain(dks.get('@alice'));
  });

  it('refuses a key that belongs to another account, and changes nothing', async () => {
    const r = await t.svc(['profile', 'add', 'wrong', '--key-stdin', '--decryption-key-stdin', '--base-url', t.url], {
      input: `${t.keyOf('@alice')}\n${dks.get('@acme')}\n`,
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: decryption key does not match the viewing key of @alice; nothing was saved \(invalid_decryption_key\)\nhint: /);
    const ls = await t.svcJson<Array<{ name: string }>>(['profile', 'ls']);
    expect(ls.map((p) => p.name)).not.toContain('wrong');
  });

  it.each([
    ['a malformed key', 'svc_dk_test_tooshort', /decryption key has the wrong length/],
    ['a live key with a test API key', 'svc_dk_live_AAAA', /decryption key (has the wrong length|is for live)/],
    ['not a decryption key', 'svc_test_abcdefghijklmnop1234', /decryption key must start with svc_dk_test_ or svc_dk_live_/],
  ])('refuses %s (exit 2)', async (_n, dk, message) => {
    const r = await t.svc(['profile', 'add', 'bad', '--key-stdin', '--decryption-key-stdin', '--base-url', t.url], { input: `${t.keyOf('@alice')}\n${dk}\n` });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/; nothing was saved \(invalid_decryption_key\)\n/);
    expect(r.stderr).not.toContain(dk);
  });

  it('takes SVC_DECRYPTION_KEY when adding', async () => {
    const r = await t.svc(['profile', 'add', 'fromenv', '--key-stdin', '--base-url', t.url], {
      input: `${t.keyOf('@alice')}\n`,
      env: { SVC_DECRYPTION_KEY: dks.get('@alice') },
    });
    expect(r.code, r.stderr).toBe(0);
    const b = await t.svc(['--profile', 'fromenv', 'balance', '--asset', 'USDC']);
    expect(b.stdout).toBe('asset\tamount\nUSDC\t250.00\n');
  });
});

describe('--verify against a service that lies', () => {
  let server: ScriptedServer;
  let url: string;
  const vk = generateViewingKey('test');
  beforeAll(async () => {
    server = await startScriptedServer((req) => {
      if (req.url === '/v1/accounts/me') {
        return { status: 200, body: { account_id: 'acct_x', handle: '@x', type: 'personal', public_key: '0x' + '1'.repeat(40), kyc_status: 'verified', viewing_public_key: vk.viewingPublicKey } };
      }
      if (req.body) return { status: 200, body: { balances: [{ asset: 'USDG', amount: '6.00' }] } }; // not what the ciphertext says
      return { status: 200, body: { balances: [{ asset: 'USDG', nonzero: true, version: 1, ciphertext: encryptTo(vk.publicKey, '5000000', contexts.balance('acct_x', 'USDG', 1)) }] } };
    });
    url = server.url;
  });
  afterAll(() => server.close());

  it('fails loudly with exit 1 and prints no balance', async () => {
    const env = { SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-lie-')), SVC_API_KEY: 'svc_test_liarliarliarliar0001', SVC_BASE_URL: url, SVC_DECRYPTION_KEY: vk.decryptionKey };
    const plain = await svcIn(['balance'], env);
    expect(plain.stdout).toBe('asset\tamount\nUSDG\t5.00\n');
    const r = await svcIn(['balance', '--verify'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("error: verification FAILED for USDG: the service's answer differs from the local decryption (verification_failed)\n");
    const j = await svcIn(['--json', 'balance', '--verify'], env);
    expect(j.code).toBe(1);
    expect(j.stdout).toBe('');
    expect(JSON.parse(j.stderr)).toEqual({ error: { code: 'verification_failed', message: "verification FAILED for USDG: the service's answer differs from the local decryption" } });
  });
});
