// The approver's commands in-process (docs/agents.md "The approval queue"): what approve and
// reject restate, what happens when the id is not in the queue (test and live keys), an agent's
// key told why it has no queue, the empty queue, review's --interval and its Ctrl-C tally.
// Real-terminal flows are in review-tty.test.ts and pending-tty.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contexts, encryptTo } from '../../../src/crypto/ciphertext.js';
import { generateViewingKey } from '../../../src/crypto/viewing-key.js';
import { runCli, type CliResult } from '../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { FAKE_LIVE_KEY, startScriptedServer, UNKNOWN_TEST_KEY, type Handler, type ScriptedServer } from '../../helpers/scripted-server.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TXN_RE = /txn_[A-Za-z0-9]{24}/;
const EMPTY = 'No transactions are waiting for approval.';

let t: TestSandbox;
let agentKey = '';
let decrypts = false;

function ok(args: string[], env: Record<string, string> = {}) {
  return t.svcOk(args, { env });}

async function hold(amount: string, memo?: string): Promise<string> {
  const r = await t.svc(['--json', 'transfer', 'send', '@acme', amount, ...(memo ? ['--memo', memo] : [])], { env: { SVC_API_KEY: agentKey } });
  expect(r.code, r.stderr).toBe(8);
  return TXN_RE.exec(r.stdout)![0];
}

/** As the owner on a pretend terminal (stdin and stdout TTYs: prompts allowed). */
function onTerminal(args: string[], opts: { env?: Record<string, string>; interrupt?: AbortSignal; onStderr?: (s: string) => void } = {}): Promise<CliResult> {
  return runCli(args, { env: { ...t.env, ...opts.env }, tty: { stdin: true, stdout: true, stderr: true }, ...(opts.interrupt ? { interrupt: opts.interrupt } : {}), ...(opts.onStderr ? { onStderr: opts.onStderr } : {}) });
}

beforeAll(async () => {
  t = await startTestSandbox();
  await ok(['agent', 'create', 'bot', '--hitl-threshold', '50']);
  agentKey = (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
  await ok(['sandbox', 'fund', '@alice/bot', '1000']);
  decrypts = Boolean(t.sandbox.seeded.find((a) => a.handle === '@alice')?.decryptionKey);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('pending approve / reject restate what they decide', () => {
  it('approve (test key: nothing asks): the receipt has amount, agent, recipient, memo and the rule; stdout the record', async () => {
    const id = await hold('60', 'invoice 60');
    const r = await t.svc(['pending', 'approve', id]);
    expect(r.code, r.stderr).toBe(0);
    const amount = decrypts ? '60.00 USDG' : 'an encrypted amount';
    expect(r.stderr).toMatch(new RegExp(`^approved ${id}: ${amount} from @alice/bot to @acme, submitted as transfer tr_\\w+\\n`));
    expect(r.stderr).toContain(`  memo         ${decrypts ? 'invoice 60' : 'encrypted'}\n`);
    expect(r.stderr).toContain('  held         above the approval threshold (hitl_threshold_usdc 50)\n');
    expect(r.stderr).not.toMatch(/LIVE|\(y\/N\)/);
    expect(r.stdout).toMatch(new RegExp(`^transaction_id\\t${id}\\nstatus\\tapproved\\ntransfer_id\\ttr_\\w+\\n$`));
  });

  it('reject: the receipt restates it; --json keeps the service\'s object on stdout and nothing on stderr', async () => {
    const id = await hold('70');
    const r = await t.svc(['pending', 'reject', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^rejected ${id}: ${decrypts ? '70\\.00 USDG' : 'an encrypted amount'} from @alice/bot to @acme, discarded, no funds moved\\n`));
    expect(r.stderr).not.toContain('memo'); // none was given

    const other = await hold('71.093846');
    const json = await t.svc(['--json', 'pending', 'approve', other]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toMatchObject({ transaction_id: other, status: 'approved', transfer_id: expect.stringMatching(/^tr_/) });
    expect(json.stdout).not.toMatch(/71\.093846|71093846/); // the service's object only: no decrypted amount added
  });

  it('not in the queue with a test key: the decision is sent and the service\'s 404 / 409 reach the user', async () => {
    const unknown = await t.svc(['pending', 'approve', 'txn_doesnotexist']);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(/\(transaction_not_found, request req_\w+\)\nhint: `svc pending ls` lists the transactions waiting for your decision\n$/);
    const id = await hold('65');
    await t.sandbox.advance(16 * 60_000);
    for (const verb of ['approve', 'reject']) {
      const expired = await t.svc(['--json', 'pending', verb, id]);
      expect(expired.code).toBe(5);
      expect(expired.stdout).toBe('');
      expect(JSON.parse(expired.stderr)).toMatchObject({ error: { code: 'transaction_expired', status: 409 } });
    }
  });
});

describe('the rule that held it, when the agent\'s policy cannot be read', () => {
  it('says "above the agent\'s approval threshold" and goes on', async () => {
    const held = { transaction_id: 'txn_1', agent: '@alice/bot', to: '@acme', requested_at: '2024-01-01T00:00:00Z', expires_at: '2099-01-01T00:00:00Z' };
    await withServer((req) => {
      if (req.url === '/v1/agents/transactions/pending') return { status: 200, body: { pending: [held] } };
      if (req.url === '/v1/accounts/me/agents') return { status: 403, body: { error: { code: 'forbidden', message: 'no' } } };
      if (req.url === '/v1/accounts/me') return { status: 200, body: ACCOUNT };
      return { status: 200, body: { ...held, status: 'approved', transfer_id: 'tr_1' } };
    }, async (s, env) => {
      const r = await runCli(['pending', 'approve', 'txn_1'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^approved txn_1: an encrypted amount from @alice\/bot to @acme, submitted as transfer tr_1\n {2}held {9}above the agent's approval threshold\n$/);
      expect(s.requests.filter((q) => q.method === 'POST')).toHaveLength(1);
    });
  });
});

describe('a decision whose answer is a 5xx', () => {
  it('is recorded as `unknown` (it may have been applied): `pending log` says so, and the command fails with the 5xx', async () => {
    const held = { transaction_id: 'txn_5xx', agent: '@alice/bot', to: '@acme', requested_at: '2024-01-01T00:00:00Z', expires_at: '2099-01-01T00:00:00Z' };
    await withServer((req) => {
      if (req.url === '/v1/agents/transactions/pending') return { status: 200, body: { pending: [held] } };
      if (req.url === '/v1/accounts/me') return { status: 200, body: ACCOUNT };
      if (req.method === 'POST') return { status: 503, body: { error: { code: 'unavailable', message: 'try later' } } };
      return { status: 404, body: { error: { code: 'not_found', message: 'no' } } };
    }, async (s, env) => {
      const r = await runCli(['pending', 'approve', 'txn_5xx'], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('error: try later (unavailable)\nhint: whether it was approved is not known (it may have been applied): `svc pending get txn_5xx` shows its state; `svc pending log` records it as unknown\n');
      expect(s.requests.filter((q) => q.method === 'POST').length).toBeGreaterThan(0);
      const log = JSON.parse((await runCli(['--json', 'pending', 'log'], { env })).stdout) as Array<Record<string, unknown>>;
      expect(log).toEqual([expect.objectContaining({ transaction_id: 'txn_5xx', decision: 'approve', result: 'unknown', via: 'pending approve' })]);
    });
  });
});

// ---- a live key (the sandbox refuses them: a scripted service) --------------------------------

const ACCOUNT = { account_id: 'acct_1', handle: '@alice', type: 'personal', public_key: `0x${'1'.repeat(40)}`, kyc_status: 'verified', created_at: '2024-01-01T00:00:00Z' };
const AGENT = { account_id: 'acct_bot', handle: '@alice/bot', public_key: `0x${'2'.repeat(40)}`, status: 'active', spend_policy_id: 'pol_1' };
const POLICY = { policy_id: 'pol_1', hitl_threshold_usdc: 50, updated_at: '2024-01-01T00:00:00Z' };

/** A live service holding txn_1 (60.371942 USDG, memo "rent", encrypted to the owner's viewing key). */
function liveService(publicKey: Buffer): Handler {
  const held = {
    transaction_id: 'txn_1', agent: '@alice/bot', to: '@acme', requested_at: new Date(Date.now() - 3 * 60_000).toISOString(),
    expires_at: new Date(Date.now() + 12 * 60_000).toISOString(), asset: 'USDG',
    amount_ciphertext: encryptTo(publicKey, '60371942', contexts.heldAmount('txn_1', 'acct_1')),
    memo_ciphertext: encryptTo(publicKey, 'rent', contexts.heldMemo('txn_1', 'acct_1')),
  };
  return (req) => {
    if (req.method === 'GET' && req.url === '/v1/agents/transactions/pending') return { status: 200, body: { pending: [held] } };
    if (req.method === 'GET' && req.url === '/v1/accounts/me/agents') return { status: 200, body: { agents: [AGENT] } };
    if (req.method === 'GET' && req.url === '/v1/agents/acct_bot/spend-policy') return { status: 200, body: POLICY };
    if (req.method === 'GET' && req.url === '/v1/accounts/me') return { status: 200, body: ACCOUNT };
    const decided = /^\/v1\/agents\/transactions\/([^/]+)\/(approve|reject)$/.exec(req.url);
    if (req.method === 'POST' && decided) {
      return decided[2] === 'approve'
        ? { status: 200, body: { transaction_id: decided[1], status: 'approved', transfer_id: 'tr_live1' } }
        : { status: 200, body: { transaction_id: decided[1], status: 'rejected' } };
    }
    return { status: 404, body: { error: { code: 'not_found', message: 'not here' } } };
  };
}

async function withServer(handler: Handler, body: (s: ScriptedServer, env: Record<string, string>) => Promise<void>, apiKey = UNKNOWN_TEST_KEY, decryptionKey?: string): Promise<void> {
  // A live key goes over https only: its service serves https (a certificate runCli trusts).
  const s = await startScriptedServer(handler, { tls: apiKey === FAKE_LIVE_KEY });
  const dir = mkdtempSync(join(tmpdir(), 'svc-pending-'));
  try {
    await body(s, { SVC_CONFIG_DIR: dir, SVC_API_KEY: apiKey, SVC_BASE_URL: s.url, NO_COLOR: '1', ...(decryptionKey ? { SVC_DECRYPTION_KEY: decryptionKey } : {}) });
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('pending approve / reject with a live key', () => {
  const viewing = generateViewingKey('live');
  const posts = (s: ScriptedServer) => s.requests.filter((r) => r.method === 'POST');

  it('in the queue, --yes: sent once, the receipt restates the decrypted amount', async () => {
    await withServer(liveService(viewing.publicKey), async (s, env) => {
      const r = await runCli(['--yes', 'pending', 'approve', 'txn_1'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^approved txn_1: 60\.371942 USDG from @alice\/bot to @acme, submitted as transfer tr_live1\n {2}memo {9}rent\n {2}held {9}above the approval threshold \(hitl_threshold_usdc 50\)\n$/);
      expect(posts(s).map((p) => p.url)).toEqual(['/v1/agents/transactions/txn_1/approve']);
    }, FAKE_LIVE_KEY, viewing.decryptionKey);
  });

  it('without a terminal and without --yes: exit 2, nothing sent', async () => {
    await withServer(liveService(viewing.publicKey), async (s, env) => {
      const r = await runCli(['pending', 'approve', 'txn_1'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: Approving txn_\w+ on a LIVE account: confirmation required \(confirmation_required\)\n/);
      expect(r.stderr).not.toMatch(/60\.371942|60371942/); // no amount in an error
      expect(posts(s)).toEqual([]);
    }, FAKE_LIVE_KEY, viewing.decryptionKey);
  });

  it('approve of an id not in the queue: never sent, even with --yes (exit 4, transaction_not_found)', async () => {
    await withServer(liveService(viewing.publicKey), async (s, env) => {
      for (const json of [false, true]) {
        const r = await runCli([...(json ? ['--json'] : []), '--yes', 'pending', 'approve', 'txn_gone'], { env });
        expect(r.code).toBe(4);
        expect(r.stdout).toBe('');
        if (json) expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'transaction_not_found' } });
        else expect(r.stderr).toMatch(/^error: txn_gone is not in the approval queue of this account \(unknown, already decided, or expired\); nothing was sent \(transaction_not_found\)\nhint: `svc pending ls` lists/);
      }
      expect(posts(s)).toEqual([]);
    }, FAKE_LIVE_KEY, viewing.decryptionKey);
  });

  it('reject of an id not in the queue, --yes: sent (no money moves), the service answers', async () => {
    await withServer(liveService(viewing.publicKey), async (s, env) => {
      const r = await runCli(['--yes', 'pending', 'reject', 'txn_gone'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^rejected txn_gone: discarded, no funds moved\n {2}\(it was not in the approval queue when looked up, so its amount is not shown\)\n$/);
      expect(posts(s).map((p) => p.url)).toEqual(['/v1/agents/transactions/txn_gone/reject']);
    }, FAKE_LIVE_KEY, viewing.decryptionKey);
  });
});

// ---- an agent's key, and the empty queue ------------------------------------------------------

describe('an agent\'s key has no queue: told why (exit 3, forbidden)', () => {
  it('pending ls, plain and --json, on a terminal or piped', async () => {
    for (const tty of [false, true]) {
      const r = await runCli(['pending', 'ls'], { env: { ...t.env, SVC_API_KEY: agentKey }, tty: { stdout: tty, stderr: tty } });
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe("error: @alice/bot is an agent: agents cannot approve or reject, so its key has no approval queue (forbidden)\nhint: the queue belongs to its owner @alice: use @alice's key (`svc --profile <owner-profile> pending ls`); this key can follow its own held transactions: `svc pending ls --all`, `svc pending wait <id>`\n");
    }
    const json = await t.svc(['--json', 'pending', 'ls'], { env: { SVC_API_KEY: agentKey } });
    expect(json.code).toBe(3);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'forbidden', hint: expect.stringContaining('@alice') } });
  });

  it('pending review (with or without --watch): the same, before any prompt', async () => {
    for (const watch of [[], ['--watch']]) {
      const r = await onTerminal(['pending', 'review', ...watch], { env: { SVC_API_KEY: agentKey } });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/^error: @alice\/bot is an agent: .* \(forbidden\)\nhint: the queue belongs to its owner @alice/);
    }
  });
});

describe('an empty queue says what to do next', () => {
  let empty: TestSandbox;
  beforeAll(async () => {
    empty = await startTestSandbox();
  });
  afterAll(async () => {
    await empty?.close();
  });

  it('pending ls: the message and the next step on a terminal; the header piped; [] with --json (all exit 0)', async () => {
    const tty = await runCli(['pending', 'ls'], { env: empty.env, tty: { stdout: true, stderr: true } });
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stdout).toBe('');
    expect(tty.stderr).toContain(`${EMPTY}\n`);
    expect(tty.stderr).toContain('svc pending review --watch');
    const piped = await empty.svc(['pending', 'ls']);
    expect(piped.code).toBe(0);
    expect(piped.stdout.split('\n')[0]).toMatch(/^transaction_id\t/);
    expect(await empty.svcJson(['pending', 'ls'])).toEqual([]);
  });

  it('pending review: the same message, exit 0, no tally', async () => {
    const r = await runCli(['pending', 'review'], { env: empty.env, tty: { stdin: true, stdout: true, stderr: true } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(EMPTY);
    expect(r.stderr).toContain('svc pending review --watch');
    expect(r.stderr).not.toContain('approved 0');
  });

  it('review --interval takes a duration (2s, 500ms) or seconds; anything else is exit 2', async () => {
    for (const ok of ['2s', '500ms', '2', '0.2', '1m']) {
      const r = await runCli(['pending', 'review', '--interval', ok], { env: empty.env, tty: { stdin: true, stdout: true } });
      expect(r.code, `${ok}: ${r.stderr}`).toBe(0);
    }
    for (const bad of ['abc', '100ms', '2 s', '-1s', '0.199', '200000']) {
      const r = await empty.svc(['pending', 'review', '--interval', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain(`--interval "${bad}" must be a duration like 500ms, 30s, 2m, 1h, 1d or 1h30m (a bare number is seconds), at least 200ms and at most 1d`);
    }
    const help = await empty.svc(['pending', 'review', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('--interval <duration> how often to poll with --watch: a duration such as 2s or 500ms; a bare number is seconds (default: "2s")');
  });

  it('review --watch: Ctrl-C while waiting prints the tally and exits 130', async () => {
    const ctl = new AbortController();
    const r = await onTerminal(['pending', 'review', '--watch', '--interval', '2s'], {
      env: empty.env,
      interrupt: ctl.signal,
      onStderr: (s) => {
        if (s.includes('waiting for held transactions')) ctl.abort('SIGINT');
      },
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/waiting for held transactions… \(Ctrl-C to stop\)\n\ninterrupted: approved 0, rejected 0, skipped 0, expired 0\n$/);
  });
});
