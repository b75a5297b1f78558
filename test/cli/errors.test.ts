// Every transfer error code with its exit code and message, and the transport rules: plain
// HTTP refusal, --verbose, connection refused, timeouts, retries, Retry-After, live-key
// confirmation. The sandbox answers the service's errors; local fake servers play the
// failures a faithful service does not show on demand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type RunResult, type TestSandbox } from '../helpers/e2e.js';
import { runCli, virtualClock } from '../helpers/cli.js';
import {
  answeringAccount, ERROR, FAKE_LIVE_KEY, refusedPort, startScriptedServer, UNKNOWN_TEST_KEY, type ScriptedServer, type Handler,
} from '../helpers/scripted-server.js';

let t: TestSandbox;
let emptyConfig: string;

beforeAll(async () => {
  t = await startTestSandbox();
  emptyConfig = mkdtempSync(join(tmpdir(), 'svc-e2e-empty-'));
});
afterAll(async () => {
  await t?.close();
  rmSync(emptyConfig, { recursive: true, force: true });
});

const lines = (s: string) => s.split('\n').filter((l) => l.length > 0);

/**
 * The CLI's error report: exactly `error: <message> (<code>[, request <id>])` and optionally one
 * `hint: ...` line, nothing else on stderr.
 */
function expectErrorReport(r: RunResult, message: RegExp, hint?: RegExp): void {
  const l = lines(r.stderr);
  expect(l[0]).toMatch(/^error: .* \([a-z_]+(: [a-z_]+)?(, request req_\w+)?\)$/);
  expect(l[0]).toMatch(message);
  if (hint) {
    expect(l).toHaveLength(2);
    expect(l[1]).toMatch(/^hint: /);
    expect(l[1]).toMatch(hint);
  } else {
    expect(l.length).toBeLessThanOrEqual(2);
    if (l[1] !== undefined) expect(l[1]).toMatch(/^hint: /);
  }
}

async function transferIds(key?: string): Promise<string[]> {
  const r = await t.svc(['--json', 'transfer', 'ls', '--limit', '100'], key ? { env: { SVC_API_KEY: key } } : {});
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Array<{ transfer_id: string }>).map((x) => x.transfer_id);
}

/** svc against a fake server: its URL and a key from the environment, no profile. */
/** The clock of the last svcAt run: retries wait on it, never in real time. */
let lastClock = virtualClock();
function svcAt(server: { url: string }, args: string[], env: Record<string, string> = {}) {
  lastClock = virtualClock();
  return runCli(args, { env: { SVC_CONFIG_DIR: emptyConfig, NO_COLOR: '1', SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url, ...env }, clock: lastClock });
}

/** `tls`: serve https (what a live key needs), with a certificate runCli trusts. */
async function withServer(handler: Handler, body: (s: ScriptedServer) => Promise<void>, opts: { tls?: boolean } = {}): Promise<void> {
  const s = await startScriptedServer(handler, opts);
  try {
    await body(s);
  } finally {
    await s.close();
  }
}

const ACCOUNT = { account_id: 'acc_1', handle: '@alice', type: 'personal', public_key: '0xabc', kyc_status: 'verified', created_at: '2024-01-01T00:00:00Z' };
const TRANSFER = { transfer_id: 'tr_fake1', status: 'pending', to: '@acme', confidential: true, tx_hash: '0xfeed', created_at: '2024-01-01T00:00:00Z' };

describe('local validation of transfer send (exit 2, nothing sent)', () => {
  // A fourth element: the hint line the error has (issue 25: the commonest mistakes get the next step).
  const cases: Array<[string, string[], RegExp, string?]> = [
    ['too many decimals', ['@acme', '1.1234567'], /^error: amount must have at most 6 decimal places for USDG \(invalid_amount\)$/],
    ['an exponent', ['@acme', '1e3'], /^error: amount must be a plain decimal like 12\.50.* \(invalid_amount\)$/],
    ['a sign', ['@acme', '+5'], /^error: amount must be a plain decimal.* \(invalid_amount\)$/],
    ['a negative amount', ['@acme', '-5'], /^error: amount must be a plain decimal.* \(invalid_amount\)$/],
    ['zero', ['@acme', '0.000'], /^error: amount must be greater than zero \(invalid_amount\)$/],
    ['a comma', ['@acme', '1,50'], /^error: amount must be a plain decimal.* \(invalid_amount\)$/],
    ['a bare name', ['acme', '1'], /^error: recipient "acme" must be an @handle or a 0x address of 40 hex digits \(invalid_recipient\)$/, 'hint: a handle starts with @: did you mean `@acme`?'],
    ['a short address', ['0x1234', '1'], /^error: recipient "0x1234" must be an @handle or a 0x address.* \(invalid_recipient\)$/],
    ['a bad asset', ['@acme', '1', '--asset', 'US$'], /^error: --asset "US\$" must be one of USDG, USDC \(invalid_asset\)$/],
    ['an unknown asset', ['@acme', '1', '--asset', 'EUR'], /^error: --asset "EUR" must be one of USDG, USDC \(invalid_asset\)$/],
    ['an empty memo', ['@acme', '1', '--memo', ''], /^error: --memo must not be empty.* \(invalid_memo\)$/],
    ['a memo over 256 bytes', ['@acme', '1', '--memo', 'é'.repeat(129)], /^error: --memo must be at most 256 bytes of UTF-8 \(invalid_memo\)$/],
    ['a bad idempotency key', ['@acme', '1', '--idempotency-key', 'has space'], /^error: --idempotency-key must be.* \(invalid_idempotency_key\)$/],
    ['a bad --timeout-wait', ['@acme', '1', '--wait', '--timeout-wait', '10 s'], /^error: --timeout-wait "10 s" must be a duration.* \(invalid_argument\)$/],
    ['a --timeout-wait over 24h (a bare number is seconds)', ['@acme', '1', '--wait', '--timeout-wait', '100000'], /^error: --timeout-wait "100000" must be a duration.*, more than 0s and at most 1d \(invalid_argument\)$/],
  ];
  it.each(cases)('refuses %s', async (_name, args, message, hint) => {
    const before = await transferIds();
    const r = await t.svc(['transfer', 'send', ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual(hint === undefined ? [expect.stringMatching(message)] : [expect.stringMatching(message), hint]);
    expect(await transferIds()).toEqual(before);
  });

  it('commander-level errors (an unknown option, a missing argument) are usage errors: exit 2, code usage', async () => {
    const before = await transferIds();
    const unknown = await t.svc(['transfer', 'send', '@acme', '1', '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expectErrorReport(unknown, /^error: unknown option '--bogus' \(usage\)$/);
    const missing = await t.svc(['transfer', 'send', '@acme']);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expectErrorReport(missing, /^error: missing required argument 'amount' \(usage\)$/);
    // --json: exactly one error object on stderr (commander's own text is not printed).
    const json = await t.svc(['--json', 'transfer', 'send', '@acme', '1', '--bogus']);
    expect(json.code).toBe(2);
    expect(json.stdout).toBe('');
    expect(json.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'usage', message: "unknown option '--bogus'" } });
    expect(await transferIds()).toEqual(before);
  });

  it('--json: a local refusal is one error object on stderr, nothing on stdout, no amount echoed', async () => {
    const r = await t.svc(['--json', 'transfer', 'send', '@acme', '123.4567891']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stderr)).toEqual({ error: { code: 'invalid_amount', message: 'amount must have at most 6 decimal places for USDG' } });
    expect(r.stderr).not.toContain('123.4567891');
  });

  it('never echoes the amount in the error', async () => {
    const r = await t.svc(['transfer', 'send', '@acme', '123.4567891']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('123.4567891');
  });
});

describe('service errors of POST /v1/transfers and their exit codes', () => {
  it('400 invalid_request (sent raw through svc api, since the CLI validates locally) → exit 2', async () => {
    const data = JSON.stringify({ to: '@acme', amount: '1.1234567' });
    const r = await t.svc(['api', 'POST', '/v1/transfers', '--data', data]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expectErrorReport(r, /\(invalid_request, request req_\w+\)$/);
    const j = await t.svc(['--json', 'api', 'POST', '/v1/transfers', '--data', data]);
    expect(j.code).toBe(2);
    expect(j.stdout).toBe('');
    const body = JSON.parse(j.stderr) as { error: { code: string; message: string; status: number; request_id: string } };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.status).toBe(400);
    expect(body.error.message.length).toBeGreaterThan(0);
    expect(body.error.request_id).toMatch(/^req_/);
  });

  it('401 unauthorized for an unknown key → exit 3', async () => {
    const r = await t.svc(['transfer', 'ls'], { env: { SVC_API_KEY: UNKNOWN_TEST_KEY } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expectErrorReport(r, /\(unauthorized, request req_\w+\)$/);
    const s = await t.svc(['transfer', 'send', '@acme', '1'], { env: { SVC_API_KEY: UNKNOWN_TEST_KEY } });
    expect(s.code).toBe(3);
  });

  it('a svc_live_ key with the sandbox\'s plain-http URL → exit 2 (insecure_base_url), never sent, even with --yes', async () => {
    const before = await transferIds();
    const r = await t.svc(['--yes', 'transfer', 'send', '@acme', '1'], { env: { SVC_API_KEY: FAKE_LIVE_KEY } });
    expect(r.code).toBe(2);
    expectErrorReport(r, /^error: refusing to send a live API key over plain HTTP to 127\.0\.0\.1:\d+ \(from profile "sandbox"\): .* \(insecure_base_url\)$/, /https:\/\//);
    expect(r.stderr).not.toContain(FAKE_LIVE_KEY);
    const ls = await t.svc(['transfer', 'ls'], { env: { SVC_API_KEY: FAKE_LIVE_KEY } });
    expect(ls.code).toBe(2);
    expect(await transferIds()).toEqual(before);
  });

  it('402 insufficient_balance → exit 6', async () => {
    const r = await t.svc(['transfer', 'send', '@acme', '5000.718293']);
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expectErrorReport(r, /\(insufficient_balance, request req_\w+\)$/);
    expect(r.stderr).not.toContain('5000.718293');
  });

  it('402 also for an asset the account holds too little of → exit 6', async () => {
    const r = await t.svc(['transfer', 'send', '@acme', '300', '--asset', 'USDC']);
    expect(r.code).toBe(6);
  });

  it('403 kyc_required for an unverified sender (@bob) → exit 3', async () => {
    const r = await t.svc(['transfer', 'send', '@alice', '1'], { env: { SVC_API_KEY: t.keyOf('@bob') } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expectErrorReport(r, /\(kyc_required, request req_\w+\)$/);
  });

  it('404 recipient_not_found → exit 4', async () => {
    const r = await t.svc(['transfer', 'send', '@nobody-at-all', '1']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expectErrorReport(r, /\(recipient_not_found, request req_\w+\)$/);
  });

  it('404 transfer_not_found for an unknown id → exit 4 with a hint', async () => {
    const r = await t.svc(['transfer', 'get', 'tr_doesnotexist']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expectErrorReport(r, /\(transfer_not_found, request req_\w+\)$/, /svc transfer ls/);
  });

  it("404 for another account's transfer (neither its sender nor its recipient)", async () => {
    const sent = await t.svcJson<{ transfer_id: string }>(['transfer', 'send', '@acme', '1']);
    const r = await t.svc(['transfer', 'get', sent.transfer_id], { env: { SVC_API_KEY: t.keyOf('@bob') } });
    expect(r.code).toBe(4);
    expectErrorReport(r, /\(transfer_not_found, request req_\w+\)$/, /svc transfer ls/);
  });

  it('422 recipient_not_confidential_ready without a terminal → exit 1 and a --no-confidential hint', async () => {
    const before = await transferIds();
    for (const to of ['@oldwallet', '0x2222222222222222222222222222222222222222']) {
      const r = await t.svc(['transfer', 'send', to, '1']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expectErrorReport(r, /\(recipient_not_confidential_ready, request req_\w+\)$/, /--no-confidential/);
      expect(r.stderr).toMatch(/public on chain/);
    }
    expect(await transferIds()).toEqual(before);
  });

  it('--no-confidential sends a standard transfer to a wallet that is not confidential-ready', async () => {
    const tr = await t.svcJson<Record<string, unknown>>(['transfer', 'send', '@oldwallet', '1', '--no-confidential']);
    expect(tr.status).toBe('pending');
    expect(tr.confidential).toBe(false);
    expect(tr.to).toBe('@oldwallet');
    expect(Object.keys(tr)).not.toContain('amount');
  });
});

describe('transport rules', () => {
  it('refuses plain HTTP to a non-loopback host before sending anything → exit 2', async () => {
    // Any request the CLI made would go through this proxy, so it would be recorded.
    await withServer(() => ({ status: 200, body: {} }), async (proxy) => {
      const r = await t.svc(['--base-url', 'http://example.com', 'transfer', 'ls'], { env: { HTTP_PROXY: proxy.url, http_proxy: proxy.url } });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expectErrorReport(r, /^error: refusing to send an API key over plain HTTP to example\.com \(insecure_base_url\)$/, /https:\/\//);
      const s = await t.svc(['--base-url', 'http://10.1.2.3:8080', 'transfer', 'send', '@acme', '1'], { env: { HTTP_PROXY: proxy.url } });
      expect(s.code).toBe(2);
      expect(proxy.requests).toHaveLength(0);
    });
  });

  it('--verbose traces method, URL, status and timing on stderr with the key masked', async () => {
    const key = t.keyOf('@alice');
    const r = await t.svc(['--verbose', 'transfer', 'ls', '--limit', '1']);
    expect(r.code).toBe(0);
    const host = new URL(t.url).host;
    expect(r.stderr).toContain(`> GET http://${host}/v1/transfers?limit=1\n`);
    expect(r.stderr).toMatch(new RegExp(`< 200 GET http://${host.replace(/\./g, '\\.')}/v1/transfers\\?limit=1 \\((?:\\d+(?:ms|s|m))+\\)`));
    expect(r.stderr).toContain(`> authorization: Bearer svc_test_****${key.slice(-4)}\n`);
    expect(r.stderr).not.toContain(key);
    expect(r.stdout).not.toContain(key);
    expect(r.stdout).not.toMatch(/^> /m);
    const post = await t.svc(['--verbose', 'transfer', 'send', '@acme', '1']);
    expect(post.code).toBe(0);
    expect(post.stderr).toMatch(/> POST http:\/\/\S+\/v1\/transfers\n/);
    expect(post.stderr).toMatch(/< 201 POST \S+ \((?:\d+(?:ms|s|m))+\)/);
    expect(post.stderr).toMatch(/> idempotency-key: [0-9a-f-]{36}/);
    expect(post.stderr).not.toContain(key);
  });

  it('connection refused → exit 7', async () => {
    const port = await refusedPort();
    const r = await t.svc(['transfer', 'ls'], { env: { SVC_BASE_URL: `http://127.0.0.1:${port}` } });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expectErrorReport(r, new RegExp(`^error: could not connect to 127\\.0\\.0\\.1:${port} \\(connection refused\\) \\(network_error\\)$`), /sandbox start/);
  });

  it('--timeout against a server that never answers → exit 7', async () => {
    await withServer(() => 'hang', async (s) => {
      const r = await svcAt(s, ['--timeout', '200ms', 'transfer', 'get', 'tr_1']);
      expect(r.code).toBe(7);
      expectErrorReport(r, /^error: no answer from 127\.0\.0\.1:\d+ within the --timeout of 200ms \(retries included\) \(timeout\)$/, /--timeout/);
      // --timeout is the whole command's network time: the first try uses all of it, no retry follows.
      expect(s.requests).toHaveLength(1);
    });
  });

  it('retries a GET answered 503 twice, then succeeds on the third try', async () => {
    await withServer((_req, n) => (n <= 2 ? { status: 503, body: ERROR('unavailable', 'try later') } : { status: 200, body: ACCOUNT }), async (s) => {
      const r = await svcAt(s, ['api', 'GET', '/v1/accounts/me']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(ACCOUNT);
      expect(s.requests.map((q) => `${q.method} ${q.url}`)).toEqual(Array(3).fill('GET /v1/accounts/me'));
    });
  });

  it('never tries more than 3 times', async () => {
    await withServer(() => ({ status: 503, body: ERROR('unavailable', 'the service is down') }), async (s) => {
      const r = await svcAt(s, ['transfer', 'ls']);
      expect(r.code).toBe(1);
      expectErrorReport(r, /^error: the service is down \(unavailable, request req_fake123\)$/);
      expect(s.requests).toHaveLength(3);
    });
  });

  it('retries a POST only with its idempotency key, the same key on every try', async () => {
    // (transfer send first asks the service which account the key is, to find its journal of keys.)
    const posts = (s: ScriptedServer) => s.requests.filter((q) => q.method === 'POST');
    await withServer(answeringAccount(() => ({ status: 502, body: ERROR('bad_gateway', 'upstream failed') })), async (s) => {
      const r = await svcAt(s, ['transfer', 'send', '@acme', '1.258463']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      // The outcome is unknown: the hint carries the command that retries with the same key.
      expectErrorReport(r, /^error: upstream failed \(bad_gateway, request req_fake123\)$/, /may or may not .* `svc transfer send @acme <amount> --idempotency-key [0-9a-f-]{36}`$/);
      const printed = /--idempotency-key ([0-9a-f-]{36})`$/m.exec(r.stderr)?.[1];
      expect(printed).toBeDefined();
      expect(r.stderr).not.toContain('1.258463');
      expect(posts(s)).toHaveLength(3);
      expect(posts(s).map((q) => q.headers['idempotency-key'])).toEqual([printed, printed, printed]);
      expect(new Set(posts(s).map((q) => q.body)).size).toBe(1);
      // With --json: nothing on stdout, the error object on stderr carries the key.
      const j = await svcAt(s, ['--json', 'transfer', 'send', '@acme', '1.258463']);
      expect(j.code).toBe(1);
      expect(j.stdout).toBe('');
      const err = (JSON.parse(j.stderr) as { error: Record<string, unknown> }).error;
      expect(err).toMatchObject({ code: 'bad_gateway', status: 502, request_id: 'req_fake123' });
      expect(err.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
      expect(err.hint).toContain(`--idempotency-key ${err.idempotency_key as string}`);
      expect(j.stderr).not.toContain('1.258463');
      expect(posts(s).slice(3).map((q) => q.headers['idempotency-key'])).toEqual(Array(3).fill(err.idempotency_key));
    });
    await withServer(answeringAccount((_q, n) => (n < 3 ? { status: 503 } : { status: 201, body: TRANSFER })), async (s) => {
      const r = await svcAt(s, ['transfer', 'send', '@acme', '1', '--idempotency-key', 'order-42']);
      expect(r.code, r.stderr).toBe(0);
      expect(posts(s).map((q) => q.headers['idempotency-key'])).toEqual(['order-42', 'order-42', 'order-42']);
      expect(r.stderr).not.toMatch(/idempotency key/);
    });
  });

  it('never retries a mutation that has no idempotency key (PATCH, DELETE)', async () => {
    await withServer(() => ({ status: 503, body: ERROR('unavailable', 'down') }), async (s) => {
      const patch = await svcAt(s, ['api', 'PATCH', '/v1/agents/acc_1/spend-policy', '--data', '{"daily_limit_usdc":5}']);
      expect(patch.code).toBe(1);
      const del = await svcAt(s, ['api', 'DELETE', '/v1/webhooks/wh_1']);
      expect(del.code).toBe(1);
      expect(s.requests.map((q) => q.method)).toEqual(['PATCH', 'DELETE']);
    });
  });

  it('honours Retry-After on 429', async () => {
    await withServer((_q, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: ERROR('rate_limited', 'slow down') } : { status: 200, body: ACCOUNT }), async (s) => {
      const r = await svcAt(s, ['api', 'GET', '/v1/accounts/me']);
      expect(r.code, r.stderr).toBe(0);
      expect(s.requests).toHaveLength(2);
      expect(lastClock.slept).toEqual([1000]); // what Retry-After asked, on the command's clock
    });
    await withServer((_q, n) => (n <= 2 ? { status: 429, headers: { 'retry-after': '0' }, body: ERROR('rate_limited', 'slow down') } : { status: 200, body: { transfers: [], has_more: false } }), async (s) => {
      const r = await svcAt(s, ['--json', 'transfer', 'ls']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
      expect(s.requests).toHaveLength(3);
    });
  });

  it('a 429 that persists ends with exit 1 after 3 tries', async () => {
    await withServer(() => ({ status: 429, headers: { 'retry-after': '0' }, body: ERROR('rate_limited', 'too many requests') }), async (s) => {
      const r = await svcAt(s, ['account']);
      expect(r.code).toBe(1);
      expectErrorReport(r, /^error: too many requests \(rate_limited, request req_fake123\)$/);
      expect(s.requests).toHaveLength(3);
    });
  });
});

describe('live keys', () => {
  it('transfer send with a svc_live_ key, no terminal and no --yes → exit 2, nothing sent', async () => {
    await withServer(answeringAccount(() => ({ status: 201, body: TRANSFER })), async (s) => {
      const r = await svcAt(s, ['transfer', 'send', '@acme', '1'], { SVC_API_KEY: FAKE_LIVE_KEY });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      // No amount in an error (it may land in a log): the question on a terminal has it.
      expectErrorReport(r, /^error: Sending USDG to @acme from a LIVE account: confirmation required \(confirmation_required\)$/, /--yes/);
      expect(s.requests).toHaveLength(0);
      // The same with --yes is sent: the refusal above came from the confirmation alone.
      const ok = await svcAt(s, ['--yes', '--json', 'transfer', 'send', '@acme', '1'], { SVC_API_KEY: FAKE_LIVE_KEY });
      expect(ok.code, ok.stderr).toBe(0);
      // After the yes, the account (for the journal of keys), then the one POST.
      expect(s.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /v1/accounts/me', 'POST /v1/transfers']);
      expect(s.requests[1]!.headers.authorization).toBe(`Bearer ${FAKE_LIVE_KEY}`);
    }, { tls: true });
  });

  it('svc api with a live key asks before any method but GET', async () => {
    await withServer(() => ({ status: 200, body: ACCOUNT }), async (s) => {
      const post = await svcAt(s, ['api', 'POST', '/v1/transfers', '--data', '{"to":"@acme","amount":"1"}'], { SVC_API_KEY: FAKE_LIVE_KEY });
      expect(post.code).toBe(2);
      expect(post.stdout).toBe('');
      expectErrorReport(post, /: confirmation required \(confirmation_required\)$/, /--yes/);
      expect(s.requests).toHaveLength(0);
      const get = await svcAt(s, ['api', 'GET', '/v1/accounts/me'], { SVC_API_KEY: FAKE_LIVE_KEY });
      expect(get.code).toBe(0);
      expect(s.requests).toHaveLength(1);
    }, { tls: true });
  });
});
