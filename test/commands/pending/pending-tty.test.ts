// `svc pending approve` and `review` with a LIVE key in a real terminal (tmux, 80 columns): the
// confirmation restates what is approved (agent, recipient, the amount decrypted locally, memo,
// the rule that held it, request time, time left) before anything is sent. The sandbox refuses
// live keys, so a scripted service holds one transaction whose amount and memo are encrypted to
// the profile's live viewing key, and records what arrives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/config/profiles.js';
import { contexts, encryptTo } from '../../../src/crypto/ciphertext.js';
import { generateViewingKey } from '../../../src/crypto/viewing-key.js';
import { BIN } from '../../helpers/e2e.js';
import { FAKE_LIVE_KEY, startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';
import { loopbackCaFile } from '../../helpers/tls.js';
import { hasTmux, killAllTmux, startTmux, type TmuxSession } from '../../helpers/tmux.js';

const WIDTH = 80;
const ACCOUNT = { account_id: 'acct_1', handle: '@alice', type: 'personal', public_key: `0x${'1'.repeat(40)}`, kyc_status: 'verified', created_at: '2024-01-01T00:00:00Z' };
const AGENT = { account_id: 'acct_bot', handle: '@alice/bot', public_key: `0x${'2'.repeat(40)}`, status: 'active', spend_policy_id: 'pol_1' };
const POLICY = { policy_id: 'pol_1', hitl_threshold_usdc: 50, updated_at: '2024-01-01T00:00:00Z' };

afterEach(killAllTmux);

describe.skipIf(!hasTmux())('a live key on a terminal: the approval prompt restates the amount', () => {
  const viewing = generateViewingKey('live');
  let server: ScriptedServer;
  let configDir = '';
  let home = '';
  beforeAll(async () => {
    const held = {
      transaction_id: 'txn_live1', agent: '@alice/bot', to: '@acme', asset: 'USDG',
      requested_at: new Date(Date.now() - 3.5 * 60_000).toISOString(),
      expires_at: new Date(Date.now() + 12 * 60_000).toISOString(),
      amount_ciphertext: encryptTo(viewing.publicKey, '60000000', contexts.heldAmount('txn_live1', 'acct_1')),
      memo_ciphertext: encryptTo(viewing.publicKey, 'rent for March', contexts.heldMemo('txn_live1', 'acct_1')),
    };
    server = await startScriptedServer((req) => {
      if (req.method === 'GET' && req.url === '/v1/agents/transactions/pending') return { status: 200, body: { pending: [held] } };
      if (req.method === 'GET' && req.url === '/v1/accounts/me/agents') return { status: 200, body: { agents: [AGENT] } };
      if (req.method === 'GET' && req.url === '/v1/agents/acct_bot/spend-policy') return { status: 200, body: POLICY };
      if (req.method === 'GET' && req.url === '/v1/accounts/me') return { status: 200, body: ACCOUNT };
      if (req.method === 'POST' && req.url === '/v1/agents/transactions/txn_live1/approve') {
        return { status: 200, body: { transaction_id: 'txn_live1', status: 'approved', transfer_id: 'tr_live1' } };
      }
      return { status: 404, body: { error: { code: 'not_found', message: 'not here' } } };
    }, { tls: true }); // a live key goes over https only: the spawned svc trusts the certificate through NODE_EXTRA_CA_CERTS
    configDir = mkdtempSync(join(tmpdir(), 'svc-pending-tty-'));
    home = mkdtempSync(join(tmpdir(), 'svc-pending-home-'));
    new ProfileStore(configDir).set('prod', { apiKey: FAKE_LIVE_KEY, baseUrl: server.url, decryptionKey: viewing.decryptionKey }, { makeCurrent: true });
  });
  afterAll(async () => {
    await server?.close();
    for (const d of [configDir, home]) if (d) rmSync(d, { recursive: true, force: true });
  });

  const posts = () => server.requests.filter((r) => r.method !== 'GET');
  function svc(...args: string[]): Promise<TmuxSession> {
    return startTmux([process.execPath, BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', SVC_CONFIG_DIR: configDir, NO_COLOR: '1', NODE_EXTRA_CA_CERTS: loopbackCaFile() },
      cwd: home,
      width: WIDTH,
    });
  }

  function expectDetails(screen: string): void {
    expect(screen).toMatch(/^ {2}agent {8}@alice\/bot$/m);
    expect(screen).toMatch(/^ {2}to {11}@acme$/m);
    expect(screen).toMatch(/^ {2}amount {7}60\.00 USDG$/m);
    expect(screen).toMatch(/^ {2}memo {9}rent for March$/m);
    expect(screen).toMatch(/^ {2}held {9}above the approval threshold \(hitl_threshold_usdc 50\)$/m);
    expect(screen).toMatch(/^ {2}requested {4}3m ago$/m);
    expect(screen).toMatch(/^ {2}time left {4}1[12]m(\d{1,2}s)?$/m);
  }

  it('pending approve: details and a question naming the amount; No sends nothing (exit 1), Yes one POST', async () => {
    server.requests.length = 0;
    const no = await svc('pending', 'approve', 'txn_live1');
    let screen = await no.waitFor(/LIVE.*\(y\/N\)/, 20_000);
    expect(screen).toContain('Approving txn_live1 (the transfer is sent at once):');
    expectDetails(screen);
    expect(screen).toMatch(/^\? Approve 60\.00 USDG from @alice\/bot to @acme on a LIVE account\? \(y\/N\)$/m); // one line at 80 columns
    expect(screen).not.toContain(FAKE_LIVE_KEY);
    await no.sendText('n');
    await no.sendKeys('Enter');
    expect(await no.waitForExit(20_000)).toBe(1);
    expect(await no.capture()).toMatch(/^Cancelled; nothing was sent\.$/m);
    expect(posts()).toEqual([]);

    const yes = await svc('pending', 'approve', 'txn_live1');
    await yes.waitFor(/LIVE.*\(y\/N\)/, 20_000);
    await yes.sendText('y');
    await yes.sendKeys('Enter');
    expect(await yes.waitForExit(20_000)).toBe(0);
    screen = await yes.capture();
    expect(screen).toMatch(/^approved txn_live1: 60\.00 USDG from @alice\/bot to @acme, submitted as transfer tr_live1$/m);
    expect(posts().map((p) => p.url)).toEqual(['/v1/agents/transactions/txn_live1/approve']);
  }, 60_000);

  it('review: a asks (live key) restating the amount; No skips it and nothing is sent', async () => {
    server.requests.length = 0;
    const term = await svc('pending', 'review');
    let screen = await term.waitFor('Held transaction 1 of 1: txn_live1', 20_000);
    expectDetails(screen.replace(/^ {2}time left {4}.*$/m, '  time left    11m')); // the prompt draws its own countdown
    expect(screen).toMatch(/^ {2}time left {4}1[12]m(\d{1,2}s)?$/m);
    await term.sendText('a');
    screen = await term.waitFor(/^\? Approve 60\.00 USDG from @alice\/bot to @acme on a LIVE account\? \(y\/N\)$/m, 20_000);
    await term.sendText('n');
    await term.sendKeys('Enter');
    expect(await term.waitForExit(20_000)).toBe(0);
    screen = await term.capture();
    expect(screen).toContain('not approved; skipped');
    expect(screen).toContain('approved 0, rejected 0, skipped 1, expired 0');
    expect(posts()).toEqual([]);
  }, 60_000);
});
