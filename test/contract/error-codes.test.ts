// The contract scripts rely on (docs/exit-codes.md): every error code of the service and every
// local code of ours, each run twice as a script would run it (no terminal): once plain, once
// with --json. Both give the same exit code; the plain run prints `error: … (<code>…)` on stderr,
// the --json run exactly one {"error":{…}} object on stderr; neither prints anything on stdout.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { generateViewingKey } from '../../src/crypto/viewing-key.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { answeringAccount, ERROR, FAKE_LIVE_KEY, refusedPort, startScriptedServer, UNKNOWN_TEST_KEY, type ScriptedServer, type Handler } from '../helpers/scripted-server.js';

let t: TestSandbox;
let agentKey: string;
let heldExpired: string;
let heldDecided: string;
let webhookId: string;
const tmp = () => mkdtempSync(join(tmpdir(), 'svc-contract-'));

/** Retries and waits happen at once: the injected clock's sleep only moves the sandbox clock. */
const sandboxClock = (): Clock => ({ now: () => t.sandbox.now().getTime(), sleep: (ms) => t.sandbox.advance(ms) });

interface RunOpts {
  env?: Record<string, string | undefined>;
  input?: string;
  clock?: Clock;
}

async function run(argv: string[], o: RunOpts = {}): Promise<CliResult> {
  return runCli(argv, { env: { ...t.env, ...o.env }, clock: o.clock ?? sandboxClock(), ...(o.input !== undefined ? { input: o.input } : {}) });
}

/** Runs a failing command plain and with --json and checks the contract; returns both results. */
async function expectFailure(code: string, exit: number, argv: string[], o: RunOpts = {}): Promise<[CliResult, CliResult]> {
  const plain = await run(argv, o);
  const json = await run(['--json', ...argv], o);
  for (const r of [plain, json]) {
    expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(exit);
    expect(r.stdout).toBe('');
  }
  const line = plain.stderr.split('\n').find((l) => l.startsWith('error: '));
  expect(line, plain.stderr).toBeDefined();
  expect(line).toMatch(new RegExp(` \\(${code}(: [a-z_]+)?(, request req_\\w+)?\\)$`));
  const lines = json.stderr.trimEnd().split('\n');
  expect(lines, json.stderr).toHaveLength(1);
  const doc = JSON.parse(lines[0]!) as { error: Record<string, unknown> };
  expect(Object.keys(doc)).toEqual(['error']);
  expect(doc.error.code).toBe(code);
  expect(typeof doc.error.message).toBe('string');
  for (const v of Object.values(doc.error)) expect(v).not.toBeNull();
  return [plain, json];
}

/** An API error also carries its HTTP status and the request id, in both modes. */
async function expectApiFailure(code: string, status: number, exit: number, argv: string[], o: RunOpts = {}): Promise<void> {
  const [plain, json] = await expectFailure(code, exit, argv, o);
  expect(plain.stderr).toMatch(/, request req_\w+\)\n/);
  const err = (JSON.parse(json.stderr) as { error: { status: number; request_id: string } }).error;
  expect(err.status).toBe(status);
  expect(err.request_id).toMatch(/^req_\w+$/);
}

async function withServer(handler: Handler, body: (s: ScriptedServer, env: Record<string, string>) => Promise<void>, key = UNKNOWN_TEST_KEY, serviceNow?: () => number): Promise<void> {
  // A live key goes over https only: its service serves https (a certificate runCli trusts).
  const s = await startScriptedServer(handler, { tls: key === FAKE_LIVE_KEY, ...(serviceNow ? { now: serviceNow } : {}) });
  try {
    await body(s, { SVC_CONFIG_DIR: tmp(), SVC_API_KEY: key, SVC_BASE_URL: s.url, NO_COLOR: '1' });
  } finally {
    await s.close();
  }
}

const ACCOUNT = { account_id: 'acct_1', handle: '@alice', type: 'personal', public_key: `0x${'1'.repeat(40)}`, kyc_status: 'verified', created_at: '2024-01-01T00:00:00Z' };

beforeAll(async () => {
  t = await startTestSandbox();
  const ok = async (argv: string[], o: RunOpts = {}) => {
    const r = await run(argv, o);
    if (r.code !== 0 && r.code !== 8) throw new Error(`${argv.join(' ')} → ${r.code}: ${r.stderr}`);
    return r;
  };
  // An agent of @alice that may pay @acme only, with approvals above 5 USDG.
  await ok(['agent', 'create', 'bot', '--allow', '@acme', '--hitl-threshold', '5']);
  agentKey = (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
  await ok(['sandbox', 'fund', '@alice/bot', '100']);
  const hold = async () => {
    const r = await ok(['--json', 'transfer', 'send', '@acme', '10'], { env: { SVC_API_KEY: agentKey } });
    return (JSON.parse(r.stdout) as { transaction_id: string }).transaction_id;
  };
  heldExpired = await hold();
  await t.sandbox.advance(16 * 60_000); // past the 15-minute approval window
  heldDecided = await hold();
  await ok(['pending', 'reject', heldDecided]);
  webhookId = (JSON.parse((await ok(['--json', 'webhook', 'create', 'http://127.0.0.1:9/hooks', '--events', 'transfer.confirmed'])).stdout) as { webhook_id: string }).webhook_id;
});
afterAll(async () => {
  await t?.close();
});

describe('every error code of the service: exit code and code on stderr, plain and --json', () => {
  it('400 invalid_request → 2', async () => {
    await expectApiFailure('invalid_request', 400, 2, ['api', 'POST', '/v1/transfers', '--data', '{"to":"@acme","amount":"1.1234567"}']);
  });
  it('400 invalid_policy → 2', async () => {
    await expectApiFailure('invalid_policy', 400, 2, ['api', 'POST', '/v1/accounts/me/agents', '--data', '{"name":"neg","spend_policy":{"daily_limit_usdc":-1}}']);
  });
  it('401 unauthorized → 3', async () => {
    await expectApiFailure('unauthorized', 401, 3, ['account'], { env: { SVC_API_KEY: UNKNOWN_TEST_KEY } });
  });
  it('402 insufficient_balance → 6', async () => {
    const [plain] = await expectFailure('insufficient_balance', 6, ['transfer', 'send', '@acme', '5000.718293']);
    expect(plain.stderr).not.toContain('5000.718293');
  });
  it('403 kyc_required → 3', async () => {
    await expectApiFailure('kyc_required', 403, 3, ['transfer', 'send', '@alice', '1'], { env: { SVC_API_KEY: t.keyOf('@bob') } });
  });
  it('403 not_agent_owner → 3', async () => {
    await expectApiFailure('not_agent_owner', 403, 3, ['api', 'GET', '/v1/agents/acct_notmine/spend-policy']);
  });
  it('404 recipient_not_found → 4', async () => {
    await expectApiFailure('recipient_not_found', 404, 4, ['transfer', 'send', '@nobody-here', '1']);
  });
  it('404 transaction_not_found → 4', async () => {
    await expectApiFailure('transaction_not_found', 404, 4, ['pending', 'approve', 'txn_doesnotexist']);
  });
  it('409 transaction_expired → 5', async () => {
    await expectApiFailure('transaction_expired', 409, 5, ['pending', 'approve', heldExpired]);
  });
  it('422 recipient_not_confidential_ready → 1, with the --no-confidential hint', async () => {
    const [plain] = await expectFailure('recipient_not_confidential_ready', 1, ['transfer', 'send', '@oldwallet', '1']);
    expect(plain.stderr).toMatch(/^hint: .*--no-confidential/m);
  });
  it('422 decryption_proof_invalid → 1', async () => {
    await expectApiFailure('decryption_proof_invalid', 422, 1, ['api', 'GET', '/v1/accounts/me/balances', '--data', '{"decryption_proof":"bm90IGEgcHJvb2Y="}']);
  });
});

describe('the error codes DESIGN.md adds', () => {
  it('403 policy_violation → 6, with its reason', async () => {
    const [plain, json] = await expectFailure('policy_violation', 6, ['transfer', 'send', '@bob', '1'], { env: { SVC_API_KEY: agentKey } });
    expect(plain.stderr).toMatch(/\(policy_violation: recipient_not_allowed, request req_\w+\)/);
    expect(JSON.parse(json.stderr).error.reason).toBe('recipient_not_allowed');
  });
  it('403 forbidden → 3', async () => {
    await expectApiFailure('forbidden', 403, 3, ['pending', 'approve', heldDecided], { env: { SVC_API_KEY: agentKey } });
  });
  it('404 transfer_not_found → 4', async () => {
    await expectApiFailure('transfer_not_found', 404, 4, ['transfer', 'get', 'tr_doesnotexist']);
  });
  it('404 webhook_not_found → 4', async () => {
    await expectApiFailure('webhook_not_found', 404, 4, ['webhook', 'deliveries', 'wh_doesnotexist']);
  });
  it('404 event_not_found → 4', async () => {
    await expectApiFailure('event_not_found', 404, 4, ['webhook', 'replay', webhookId, 'evt_doesnotexist']);
  });
  it('409 transaction_already_decided → 5', async () => {
    await expectApiFailure('transaction_already_decided', 409, 5, ['pending', 'reject', heldDecided]);
  });
  it('409 agent_name_taken → 5', async () => {
    await expectApiFailure('agent_name_taken', 409, 5, ['agent', 'create', 'bot']);
  });
  it('409 idempotency_key_reused → 5', async () => {
    // Made outside `transfer send` (whose journal would refuse the reuse itself, below): the service's answer.
    const body = JSON.stringify({ to: '@acme', amount: '1', asset: 'USDG', confidential: true });
    expect((await run(['api', 'POST', '/v1/transfers', '--idempotency-key', 'contract-reuse-1', '--data', body])).code).toBe(0);
    await expectApiFailure('idempotency_key_reused', 409, 5, ['transfer', 'send', '@acme', '2', '--idempotency-key', 'contract-reuse-1']);
  });
  it('idempotency_key_reused → 5, refused by svc itself for a key its journal knows (no request)', async () => {
    expect((await run(['transfer', 'send', '@acme', '1', '--idempotency-key', 'contract-reuse-2'])).code).toBe(0);
    const [plain, json] = await expectFailure('idempotency_key_reused', 5, ['transfer', 'send', '@acme', '2', '--idempotency-key', 'contract-reuse-2']);
    expect(plain.stderr).not.toMatch(/request req_/);
    expect(JSON.parse(json.stderr).error).toMatchObject({ idempotency_key: 'contract-reuse-2', transfer_id: expect.stringMatching(/^tr_/) });
  });
  it('403 forbidden, reason agent_suspended → 3 (and resuming lets the agent pay again)', async () => {
    expect((await run(['agent', 'suspend', 'bot'])).code).toBe(0);
    try {
      await expectApiFailure('forbidden', 403, 3, ['transfer', 'send', '@acme', '1'], { env: { SVC_API_KEY: agentKey } });
      const plain = await run(['transfer', 'send', '@acme', '1'], { env: { SVC_API_KEY: agentKey } });
      expect(plain.stderr).toMatch(/\(forbidden: agent_suspended, request req_\w+\)/);
    } finally {
      expect((await run(['agent', 'resume', 'bot'])).code).toBe(0);
    }
    expect((await run(['transfer', 'send', '@acme', '1'], { env: { SVC_API_KEY: agentKey } })).code).toBe(0);
  });
  it('429 rate_limited after the retries → 1', async () => {
    await withServer(() => ({ status: 429, headers: { 'retry-after': '1' }, body: ERROR('rate_limited', 'slow down') }), async (s, env) => {
      await expectFailure('rate_limited', 1, ['account'], { env, clock: { now: Date.now, sleep: async () => {} } });
      expect(s.requests.length).toBe(6); // 3 tries per run
    });
  });
  it('5xx after the retries → 1, with the service code', async () => {
    await withServer(() => ({ status: 503, body: ERROR('unavailable', 'down for maintenance') }), async (_s, env) => {
      await expectFailure('unavailable', 1, ['account'], { env, clock: { now: Date.now, sleep: async () => {} } });
    });
  });
});

describe('every local code', () => {
  it('usage → 2: an unknown option, a missing argument, a noun without a verb', async () => {
    const [plain] = await expectFailure('usage', 2, ['transfer', 'ls', '--bogus']);
    expect(plain.stderr).toMatch(/^error: unknown option '--bogus' \(usage\)$/m);
    await expectFailure('usage', 2, ['transfer', 'get']);
    const [noun, nounJson] = await expectFailure('usage', 2, ['transfer']);
    expect(noun.stderr).toMatch(/^Usage: svc transfer/m); // the noun's help, then the error line
    expect(nounJson.stderr).not.toMatch(/Usage:/); // with --json, only the error object
  });
  it('invalid_argument → 2', async () => {
    await expectFailure('invalid_argument', 2, ['transfer', 'ls', '--limit', '0']);
  });
  it('id_shortened → 2: an id copied from a screen that cut it (docs/ux.md, Ids)', async () => {
    await expectFailure('id_shortened', 2, ['transfer', 'get', 'tr_n8gOnwt…s5T5nESr']);
    await expectFailure('id_shortened', 2, ['pending', 'approve', 'txn_cj…oyrw']);
    await expectFailure('id_shortened', 2, ['sandbox', 'key', 'revoke', 'key_Ab3…x9Zq', '--yes']);
  });
  it('invalid_amount, invalid_recipient, invalid_asset, invalid_memo, invalid_idempotency_key → 2, nothing sent', async () => {
    const before = (await run(['--json', 'transfer', 'ls', '--limit', '100'])).stdout;
    const [amount] = await expectFailure('invalid_amount', 2, ['transfer', 'send', '@acme', '12.3456789']);
    expect(amount.stderr).not.toContain('12.3456789');
    await expectFailure('invalid_recipient', 2, ['transfer', 'send', 'acme', '1']);
    await expectFailure('invalid_asset', 2, ['transfer', 'send', '@acme', '1', '--asset', 'EUR']);
    await expectFailure('invalid_memo', 2, ['transfer', 'send', '@acme', '1', '--memo', 'x'.repeat(257)]);
    await expectFailure('invalid_idempotency_key', 2, ['transfer', 'send', '@acme', '1', '--idempotency-key', 'has space']);
    expect((await run(['--json', 'transfer', 'ls', '--limit', '100'])).stdout).toBe(before);
  });
  it('invalid_address_checksum → 2: a mixed-case 0x address that fails its EIP-55 checksum, nothing sent', async () => {
    const before = (await run(['--json', 'transfer', 'ls', '--limit', '100'])).stdout;
    const typo = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
    const [plain] = await expectFailure('invalid_address_checksum', 2, ['transfer', 'send', typo, '1']);
    expect(plain.stderr).toMatch(/looks like a typo/);
    await expectFailure('invalid_address_checksum', 2, ['agent', 'create', 'typo', '--allow', typo]);
    expect((await run(['--json', 'transfer', 'ls', '--limit', '100'])).stdout).toBe(before);
  });
  it("policy_unavailable → 1: a dry run cannot read the agent's policy", async () => {
    const me = { account_id: 'acct_bot', handle: '@alice/bot', type: 'agent', public_key: `0x${'1'.repeat(40)}`, kyc_status: 'verified', created_at: '2024-01-01T00:00:00Z' };
    await withServer((req) => (req.url === '/v1/accounts/me' ? { status: 200, body: me } : { status: 403, body: ERROR('not_agent_owner', 'not yours') }), async (s, env) => {
      await expectFailure('policy_unavailable', 1, ['transfer', 'send', '@acme', '1', '--dry-run'], { env });
      expect(s.requests.every((r) => r.method === 'GET')).toBe(true);
    });
  });
  it('transaction_rejected → 6, transaction_expired → 5: a wait on a held transaction ends as it did', async () => {
    const [, rejected] = await expectFailure('transaction_rejected', 6, ['pending', 'wait', heldDecided], { env: { SVC_API_KEY: agentKey } });
    expect(JSON.parse(rejected.stderr).error).toMatchObject({ transaction_id: heldDecided, status: 'rejected' });
    const [, expired] = await expectFailure('transaction_expired', 5, ['pending', 'wait', heldExpired]);
    expect(JSON.parse(expired.stderr).error).toMatchObject({ transaction_id: heldExpired, status: 'expired' });
  });
  it('unsupported_by_service → 1: a service without the held-transaction routes (beyond the spec)', async () => {
    await withServer(() => ({ status: 404, body: 'Not Found' }), async (_s, env) => {
      await expectFailure('unsupported_by_service', 1, ['pending', 'get', 'txn_1'], { env });
      await expectFailure('unsupported_by_service', 1, ['pending', 'ls', '--all'], { env });
    });
    await withServer(() => ({ status: 405, body: ERROR('method_not_allowed', 'no') }), async (_s, env) => {
      await expectFailure('unsupported_by_service', 1, ['pending', 'wait', 'txn_1'], { env });
    });
  });
  it('invalid_policy, invalid_agent_name → 2', async () => {
    await expectFailure('invalid_policy', 2, ['agent', 'create', 'neg', '--daily-limit', '-5']);
    await expectFailure('invalid_agent_name', 2, ['agent', 'create', 'Not OK']);
  });
  it('invalid_profile_name → 2', async () => {
    await expectFailure('invalid_profile_name', 2, ['profile', 'add', 'bad name', '--key-stdin'], { input: `${t.keyOf('@alice')}\n` });
  });
  it('invalid_decryption_key → 2', async () => {
    await expectFailure('invalid_decryption_key', 2, ['balance'], { env: { SVC_DECRYPTION_KEY: 'svc_dk_test_garbage' } });
  });
  it('no_decryption_key → 2', async () => {
    await expectFailure('no_decryption_key', 2, ['balance', '--verify'], { env: { SVC_CONFIG_DIR: tmp(), SVC_API_KEY: t.keyOf('@alice'), SVC_BASE_URL: t.url } });
  });
  it('invalid_base_url, insecure_base_url → 2', async () => {
    await expectFailure('invalid_base_url', 2, ['--base-url', 'not a url', 'account']);
    await expectFailure('insecure_base_url', 2, ['--base-url', 'http://example.com', 'account']);
  });
  it('base_url_required → 2 (a live key has no default base URL); insecure_base_url → 2 for a live key over plain http to loopback', async () => {
    await expectFailure('base_url_required', 2, ['account'], { env: { SVC_CONFIG_DIR: tmp(), SVC_API_KEY: FAKE_LIVE_KEY } });
    await expectFailure('base_url_required', 2, ['profile', 'add', 'prod', '--key-stdin', '--no-verify'], { env: { SVC_CONFIG_DIR: tmp() }, input: `${FAKE_LIVE_KEY}\n` });
    await withServer(() => ({ status: 200, body: ACCOUNT }), async (s, env) => {
      await expectFailure('insecure_base_url', 2, ['account'], { env: { ...env, SVC_API_KEY: FAKE_LIVE_KEY } });
      await expectFailure('insecure_base_url', 2, ['--base-url', s.url, 'profile', 'add', 'prod', '--key-stdin'], { env, input: `${FAKE_LIVE_KEY}\n` });
      expect(s.requests).toEqual([]);
    });
  });
  it('confirmation_required → 2, nothing sent (live key, no terminal)', async () => {
    await withServer(() => ({ status: 201, body: {} }), async (s, env) => {
      await expectFailure('confirmation_required', 2, ['transfer', 'send', '@acme', '1'], { env });
      expect(s.requests).toHaveLength(0);
    }, FAKE_LIVE_KEY);
  });
  it('idempotency_outcome_unknown → 5: a try whose answer was lost, run again after the service forgot its key', async () => {
    // One clock for the tool and the service (its Date headers), as on a machine whose clock is right.
    let now = Date.parse('2026-03-01T00:00:00Z');
    await withServer(answeringAccount((req) => (req.method === 'POST' ? { status: 503, body: ERROR('unavailable', 'down') } : { status: 404 })), async (s, env) => {
      const clock: Clock = { now: () => now, sleep: async (ms) => void (now += ms) };
      const first = await run(['transfer', 'send', '@acme', '1', '--idempotency-key', 'lost-1'], { env, clock });
      expect(first.code).toBe(1); // 503 after the retries: the outcome is unknown
      now += 25 * 3_600_000;
      const posts = s.requests.filter((q) => q.method === 'POST').length;
      const [, json] = await expectFailure('idempotency_outcome_unknown', 5, ['transfer', 'send', '@acme', '1', '--idempotency-key', 'lost-1'], { env, clock });
      expect(JSON.parse(json.stderr).error).toMatchObject({ idempotency_key: 'lost-1', hint: expect.stringContaining('svc transfer ls --since 2026-03-01T00:00:00') });
      expect(s.requests.filter((q) => q.method === 'POST')).toHaveLength(posts); // not sent again
    }, UNKNOWN_TEST_KEY, () => now);
  });
  it('invalid_option → 2 (sandbox start)', async () => {
    await expectFailure('invalid_option', 2, ['sandbox', 'start', '--port', '0', '--ephemeral', '--host', '10.1.2.3']);
  });
  it('no_sandbox_profile → 2', async () => {
    await expectFailure('no_sandbox_profile', 2, ['--profile', 'elsewhere', 'sandbox', 'clock']);
  });
  it('no_api_key, invalid_api_key → 3', async () => {
    await expectFailure('no_api_key', 3, ['account'], { env: { SVC_CONFIG_DIR: tmp() } });
    await expectFailure('invalid_api_key', 3, ['account'], { env: { SVC_API_KEY: 'svc_test_bogus' } });
  });
  it('profile_not_found, agent_not_found, balance_not_found → 4', async () => {
    await expectFailure('profile_not_found', 4, ['--profile', 'nope', 'account']);
    await expectFailure('agent_not_found', 4, ['agent', 'policy', 'get', 'nobot']);
    await expectFailure('balance_not_found', 4, ['balance', '--asset', 'USDC'], { env: { SVC_API_KEY: t.keyOf('@acme'), SVC_DECRYPTION_KEY: undefined } });
  });
  it('network_error, timeout → 7', async () => {
    const port = await refusedPort();
    await expectFailure('network_error', 7, ['account'], { env: { SVC_BASE_URL: `http://127.0.0.1:${port}` }, clock: { now: Date.now, sleep: async () => {} } });
    await withServer(() => 'hang', async (_s, env) => {
      await expectFailure('timeout', 7, ['--timeout', '100ms', 'account'], { env, clock: { now: Date.now, sleep: async () => {} } });
    });
  });
  it('wait_timeout → 7, with the transfer id', async () => {
    // Time passes for --wait (its own clock) but not for the sandbox, so the transfer stays pending.
    let now = Date.now();
    const clock: Clock = { now: () => now, sleep: async (ms) => void (now += ms) };
    const [, json] = await expectFailure('wait_timeout', 7, ['transfer', 'send', '@acme', '1', '--wait', '--timeout-wait', '2s'], { clock });
    expect(JSON.parse(json.stderr).error.transfer_id).toMatch(/^tr_/);
  });
  it('transfer_failed → 1, with the transfer id (the dead address never settles)', async () => {
    const [, json] = await expectFailure('transfer_failed', 1, ['transfer', 'send', '0x000000000000000000000000000000000000dEaD', '1', '--wait']);
    expect(JSON.parse(json.stderr).error.transfer_id).toMatch(/^tr_/);
  });
  it('invalid_response → 1', async () => {
    await withServer(() => ({ status: 200, body: '<html>hello</html>' }), async (_s, env) => {
      await expectFailure('invalid_response', 1, ['account'], { env });
    });
    await withServer(() => ({ status: 200, body: { account_id: 7 } }), async (_s, env) => {
      await expectFailure('invalid_response', 1, ['account'], { env });
    });
  });
  it('response_too_large, redirect_not_followed → 1, neither retried', async () => {
    await withServer(() => ({ status: 200, body: `"${'x'.repeat(11 * 1024 * 1024)}"` }), async (s, env) => {
      await expectFailure('response_too_large', 1, ['account'], { env });
      expect(s.requests).toHaveLength(2); // one per run (plain, --json)
    });
    await withServer(() => ({ status: 302, headers: { location: 'http://127.0.0.1:9/steal' } }), async (s, env) => {
      await expectFailure('redirect_not_followed', 1, ['account'], { env });
      expect(s.requests).toHaveLength(2);
    });
  });
  it('unsafe_config → 2: a config directory that is a symbolic link is neither read nor written', async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'real'), { mode: 0o700 });
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    await expectFailure('unsafe_config', 2, ['profile', 'ls'], { env: { SVC_CONFIG_DIR: join(dir, 'link') } });
  });
  it('verification_failed, decryption_failed → 1', async () => {
    const acme = t.sandbox.seeded.find((a) => a.handle === '@acme')!.decryptionKey!;
    await expectFailure('decryption_failed', 1, ['balance'], { env: { SVC_DECRYPTION_KEY: acme } });
    const vk = generateViewingKey('test');
    const { encryptTo, contexts } = await import('../../src/crypto/ciphertext.js');
    await withServer((req) => {
      if (req.url === '/v1/accounts/me') return { status: 200, body: { ...ACCOUNT, account_id: 'acct_x', viewing_public_key: vk.viewingPublicKey } };
      if (req.body) return { status: 200, body: { balances: [{ asset: 'USDG', amount: '6.00' }] } }; // not what the ciphertext says
      return { status: 200, body: { balances: [{ asset: 'USDG', nonzero: true, version: 1, ciphertext: encryptTo(vk.publicKey, '5000000', contexts.balance('acct_x', 'USDG', 1)) }] } };
    }, async (_s, env) => {
      await expectFailure('verification_failed', 1, ['balance', '--verify'], { env: { ...env, SVC_DECRYPTION_KEY: vk.decryptionKey } });
    });
  });
  it('invalid_signature, stale_timestamp, invalid_timestamp → 1 (webhook verify)', async () => {
    const { signPayload } = await import('../../src/crypto/webhook-signature.js');
    const secret = 'whsec_contracttestsecret0001';
    const body = JSON.stringify({ event: 'transfer.confirmed', timestamp: '2020-01-01T00:00:00Z' });
    const env = { S: secret };
    await expectFailure('invalid_signature', 1, ['webhook', 'verify', '--secret-env', 'S', '--signature', '0'.repeat(64)], { env, input: body });
    await expectFailure('stale_timestamp', 1, ['webhook', 'verify', '--secret-env', 'S', '--signature', signPayload(secret, Buffer.from(body))], { env, input: body });
    const undated = JSON.stringify({ event: 'transfer.confirmed' });
    await expectFailure('invalid_timestamp', 1, ['webhook', 'verify', '--secret-env', 'S', '--signature', signPayload(secret, Buffer.from(undated))], { env, input: undated });
  });
  it('address_in_use, state_unreadable, key_missing → 1 (sandbox start)', async () => {
    const port = new URL(t.url).port;
    await expectFailure('address_in_use', 1, ['sandbox', 'start', '--port', port, '--ephemeral']);
    const dir = tmp();
    mkdirSync(join(dir, 'a'));
    writeFileSync(join(dir, 'a', 'state.json'), 'not json');
    writeFileSync(join(dir, 'a', 'state.json.key'), `${'ab'.repeat(32)}\n`);
    await expectFailure('state_unreadable', 1, ['sandbox', 'start', '--port', '0', '--state', join(dir, 'a', 'state.json')]);
    mkdirSync(join(dir, 'b'));
    writeFileSync(join(dir, 'b', 'state.json'), '{}');
    await expectFailure('key_missing', 1, ['sandbox', 'start', '--port', '0', '--state', join(dir, 'b', 'state.json')]);
  });
  it('internal_error → 70: a bug says so, and shows its stack only with --verbose', async () => {
    const broken: Clock = { now: () => { throw new TypeError('clock is broken'); }, sleep: async () => {} };
    const argv = ['transfer', 'send', '@acme', '1', '--wait'];
    const [plain] = await expectFailure('internal_error', 70, argv, { clock: broken });
    expect(plain.stderr).toMatch(/^error: unexpected failure: clock is broken \(internal_error\)\nhint: this is a bug in svc/m);
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const verbose = await run(['--verbose', ...argv], { clock: broken });
    expect(verbose.code).toBe(70);
    expect(verbose.stderr).toMatch(/\n\s+at /);
  });
});

describe('confirmation: asked only with a live key, and never after sending', () => {
  const AGENT = { account_id: 'acct_bot', handle: '@alice/bot', public_key: `0x${'2'.repeat(40)}`, status: 'active', spend_policy_id: 'pol_1' };
  const POLICY = { policy_id: 'pol_1', daily_limit_usdc: 100, updated_at: '2024-01-01T00:00:00Z' };
  const HELD = { transaction_id: 'txn_1', agent: '@alice/bot', to: '@acme', requested_at: '2024-01-01T00:00:00Z', expires_at: '2099-01-01T00:00:00Z' };
  /** A "live" service: reads answer, writes answer too (so --yes shows the write is sent). */
  const live: Handler = (req) => {
    if (req.method === 'GET' && req.url === '/v1/accounts/me/agents') return { status: 200, body: { agents: [AGENT] } };
    if (req.method === 'GET' && req.url.endsWith('/spend-policy')) return { status: 200, body: POLICY };
    // approve / reject look the transaction up first (a live key approves only what it has shown).
    if (req.method === 'GET' && req.url === '/v1/agents/transactions/pending') return { status: 200, body: { pending: [HELD] } };
    if (req.method === 'GET') return { status: 200, body: ACCOUNT };
    if (req.url === '/v1/transfers') return { status: 201, body: { transfer_id: 'tr_live1', status: 'pending', to: '@acme', confidential: true, tx_hash: '0xab', created_at: '2024-01-01T00:00:00Z' } };
    if (req.url.startsWith('/v1/agents/transactions/')) return { status: 200, body: { transaction_id: 'txn_1', status: 'approved', transfer_id: 'tr_2' } };
    if (req.url === '/v1/accounts/me/agents') return { status: 201, body: AGENT };
    if (req.url.endsWith('/spend-policy')) return { status: 200, body: { ...POLICY, daily_limit_usdc: 50 } };
    return { status: 200, body: AGENT };
  };
  const writes = (s: ScriptedServer) => s.requests.filter((r) => r.method !== 'GET');
  const commands: Array<[string, string[]]> = [
    ['transfer send', ['transfer', 'send', '@acme', '1']],
    ['pending approve', ['pending', 'approve', 'txn_1']],
    ['pending reject', ['pending', 'reject', 'txn_1']],
    ['agent create', ['agent', 'create', 'bot2', '--daily-limit', '10']],
    ['agent policy set', ['agent', 'policy', 'set', 'bot', '--daily-limit', '50']],
    ['agent suspend', ['agent', 'suspend', 'bot']],
    ['agent resume', ['agent', 'resume', 'bot']],
    ['api POST', ['api', 'POST', '/v1/transfers', '--data', '{"to":"@acme","amount":"1"}']],
  ];
  it.each(commands)('%s with a live key: refused without a terminal (exit 2, nothing written), sent with --yes', async (_name, argv) => {
    await withServer(live, async (s, env) => {
      for (const flags of [[], ['--no-input']]) {
        const r = await run([...flags, ...argv], { env });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(/\(confirmation_required\)\nhint: .*--yes/);
      }
      expect(writes(s)).toEqual([]);
      const yes = await run(['--yes', ...argv], { env });
      expect(yes.code, yes.stderr).toBe(0);
      expect(writes(s)).toHaveLength(1);
    }, FAKE_LIVE_KEY);
  });
  it('with a test key nothing asks: a scripted policy change against the sandbox needs no --yes', async () => {
    const r = await run(['agent', 'policy', 'set', 'bot', '--daily-limit', '75']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/confirm/i);
    expect(JSON.parse((await run(['--json', 'agent', 'policy', 'get', 'bot'])).stdout).daily_limit_usdc).toBe(75);
  });
});
