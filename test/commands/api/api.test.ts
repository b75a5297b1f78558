// `svc api <METHOD> <path>`: raw authenticated requests, local checks, bodies from argv, a file
// or stdin, and how API errors come out.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { svcIn } from '../../helpers/cli.js';
import { startScriptedServer, UNKNOWN_TEST_KEY } from '../../helpers/scripted-server.js';
import { HAS_SCRIPT, runInTty } from '../../helpers/run.js';

let t: TestSandbox;
let work: string;
beforeAll(async () => {
  t = await startTestSandbox();
  work = mkdtempSync(join(tmpdir(), 'svc-e2e-api-'));
});
afterAll(async () => {
  await t?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('svc api against the sandbox', () => {
  it('GET /v1/accounts/me prints the account as one JSON document', async () => {
    const r = await t.svc(['api', 'GET', '/v1/accounts/me']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.trim().split('\n')).toHaveLength(1); // compact when piped
    const me = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(me).toMatchObject({ handle: '@alice', type: 'personal', kyc_status: 'verified' });
    expect(me.account_id).toEqual(expect.any(String));
  });

  it('accepts a lower-case method and --query parameters', async () => {
    await t.svcJson(['transfer', 'send', '@acme', '1']);
    await t.svcJson(['transfer', 'send', '@acme', '1']);
    const r = await t.svc(['api', 'get', '/v1/transfers', '--query', 'limit=1', '-q', 'status=pending']);
    expect(r.code, r.stderr).toBe(0);
    const page = JSON.parse(r.stdout) as { transfers: unknown[]; limit: number; has_more: boolean };
    expect(page.transfers).toHaveLength(1);
    expect(page.limit).toBe(1);
    expect(page.has_more).toBe(true);
  });

  it('POST with --data creates a transfer (201) and the same --idempotency-key replays it', async () => {
    // A distinctive canary amount: '2.5' also turned up in timestamps (…:52.560Z) and failed by chance.
    const data = JSON.stringify({ to: '@acme', amount: '2.718347' });
    const a = await t.svc(['api', 'POST', '/v1/transfers', '--data', data, '--idempotency-key', 'api-key-1']);
    expect(a.code, a.stderr).toBe(0);
    const b = await t.svc(['api', 'POST', '/v1/transfers', '--data', data, '--idempotency-key', 'api-key-1']);
    const first = JSON.parse(a.stdout) as { transfer_id: string; status: string };
    expect(first.status).toBe('pending');
    expect((JSON.parse(b.stdout) as { transfer_id: string }).transfer_id).toBe(first.transfer_id);
    expect(a.stdout).not.toContain('2.718347');
    expect(a.stdout).not.toContain('2718347'); // nor in units
  });

  it('reads --data from a file (@FILE) and from stdin (-)', async () => {
    const file = join(work, 'body.json');
    writeFileSync(file, JSON.stringify({ to: '@acme', amount: '1' }));
    const fromFile = await t.svc(['api', 'POST', '/v1/transfers', '--data', `@${file}`]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ status: 'pending', to: '@acme' });
    const fromStdin = await t.svc(['api', 'POST', '/v1/transfers', '--data', '-'], { input: '{"to":"@acme","amount":"1"}' });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ status: 'pending', to: '@acme' });
  });

  it('an API error exits with its code and prints one error line; --json prints the error object on stderr, nothing on stdout', async () => {
    const r = await t.svc(['api', 'GET', '/v1/transfers/tr_nope']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: .+ \(transfer_not_found, request req_\w+\)\n$/);
    const requestId = /request (req_\w+)\)/.exec(r.stderr)![1];
    const j = await t.svc(['--json', 'api', 'GET', '/v1/transfers/tr_nope']);
    expect(j.code).toBe(4);
    expect(j.stdout).toBe('');
    expect(j.stderr.trim().split('\n')).toHaveLength(1);
    const body = JSON.parse(j.stderr) as { error: { code: string; message: string; status: number; request_id: string } };
    expect(body.error.code).toBe('transfer_not_found');
    expect(body.error.status).toBe(404);
    expect(body.error.message).toBe(/^error: (.+) \(transfer_not_found/.exec(r.stderr)![1]);
    expect(body.error.request_id).toMatch(/^req_\w+$/);
    expect(body.error.request_id).not.toBe(requestId); // each call has its own id

    const kyc = await t.svc(['api', 'POST', '/v1/transfers', '--data', '{"to":"@alice","amount":"1"}'], { env: { SVC_API_KEY: t.keyOf('@bob') } });
    expect(kyc.code).toBe(3);
    expect(kyc.stdout).toBe('');
    expect(kyc.stderr).toMatch(/^error: .+ \(kyc_required, request req_\w+\)\n$/);
    const poor = await t.svc(['--json', 'api', 'POST', '/v1/transfers', '--data', '{"to":"@acme","amount":"938271.640519"}']);
    expect(poor.code).toBe(6);
    expect(poor.stdout).toBe('');
    expect(JSON.parse(poor.stderr).error).toMatchObject({ code: 'insufficient_balance', status: 402 });
    expect(poor.stderr).not.toContain('938271.640519');
  });

  it.skipIf(!HAS_SCRIPT)('pretty-prints on a terminal', async () => {
    const r = await runInTty(['api', 'GET', '/v1/accounts/me'], t.env);
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/^\{\n {2}"account_id": /);
    expect(r.output).toMatch(/\n {2}"handle": "@alice",\n/);
  });
});

describe('svc api local checks (exit 2, nothing sent)', () => {
  const cases: Array<[string, string[], string, string?]> = [
    ['an unknown method', ['FETCH', '/v1/accounts/me'], 'error: method "FETCH" must be one of GET, POST, PUT, PATCH, DELETE (invalid_argument)\n'],
    ['a path without /', ['GET', 'v1/accounts/me'], 'error: path "v1/accounts/me" must start with / (like /v1/accounts/me) (invalid_argument)\n'],
    ['a full URL', ['GET', 'https://evil.example.com/v1/accounts/me'], 'error: path "https://evil.example.com/v1/accounts/me" must be relative to the base URL (like /v1/accounts/me) (invalid_argument)\nhint: use --base-url to talk to another service\n'],
    ['a protocol-relative URL', ['GET', '//evil.example.com/x'], 'error: path "//evil.example.com/x" must be relative to the base URL (like /v1/accounts/me) (invalid_argument)\nhint: use --base-url to talk to another service\n'],
    ['invalid JSON', ['POST', '/v1/transfers', '--data', '{to:'], 'error: --data is not valid JSON: '],
    ['invalid JSON on stdin', ['POST', '/v1/transfers', '--data', '-'], 'error: --data - (stdin) is not valid JSON: ', 'not json'],
    ['a missing file', ['POST', '/v1/transfers', '--data', '@/nonexistent/body.json'], 'error: --data @/nonexistent/body.json: cannot read the file (ENOENT) (invalid_argument)\n'],
    ['a bad --query', ['GET', '/v1/transfers', '--query', 'limit'], 'error: --query "limit" must be key=value (invalid_argument)\n'],
    ['an idempotency key on a GET', ['GET', '/v1/transfers', '--idempotency-key', 'k1'], 'error: --idempotency-key applies to POST requests only (invalid_argument)\n'],
  ];
  it.each(cases)('refuses %s', async (_name, args, stderr, input) => {
    const server = await startScriptedServer(() => ({ status: 200, body: {} }));
    try {
      const r = await svcIn(['api', ...args], { SVC_CONFIG_DIR: work, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url }, { input: input ?? '' });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      if (stderr.endsWith('\n')) expect(r.stderr).toBe(stderr);
      else {
        expect(r.stderr.startsWith(stderr)).toBe(true);
        expect(r.stderr).toMatch(/ \(invalid_argument\)\n$/);
        expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      }
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('sends what it was given: method, path with query, body, key and idempotency key', async () => {
    const server = await startScriptedServer(() => ({ status: 200, body: { ok: true } }));
    try {
      const r = await svcIn(['api', 'post', '/v1/webhooks?x=1', '--data', '{"url":"https://h.example.com","events":["transfer.confirmed"]}', '-q', 'y=2 3', '--idempotency-key', 'wh-1'], {
        SVC_CONFIG_DIR: work, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: `${server.url}/prefix/`,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('{"ok":true}\n');
      const q = server.requests[0]!;
      expect(q.method).toBe('POST');
      expect(q.url).toBe('/prefix/v1/webhooks?x=1&y=2+3');
      expect(JSON.parse(q.body)).toEqual({ url: 'https://h.example.com', events: ['transfer.confirmed'] });
      expect(q.headers.authorization).toBe(`Bearer ${UNKNOWN_TEST_KEY}`);
      expect(q.headers['idempotency-key']).toBe('wh-1');
    } finally {
      await server.close();
    }
  });

  it('an empty 204 answer prints {}', async () => {
    const server = await startScriptedServer(() => ({ status: 204 }));
    try {
      const r = await svcIn(['api', 'DELETE', '/v1/webhooks/wh_1'], { SVC_CONFIG_DIR: work, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('{}\n');
    } finally {
      await server.close();
    }
  });

  it('an error body of another shape still gives one line and the mapped exit code', async () => {
    const server = await startScriptedServer(() => ({ status: 409, body: { code: 'transaction_expired', message: 'too late' } }));
    try {
      const r = await svcIn(['--json', 'api', 'POST', '/v1/agents/transactions/txn_1/approve'], { SVC_CONFIG_DIR: work, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url });
      expect(r.code).toBe(5);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(r.stderr)).toEqual({ error: { code: 'transaction_expired', message: 'too late', status: 409 } });
      const plain = await svcIn(['api', 'POST', '/v1/agents/transactions/txn_1/approve'], { SVC_CONFIG_DIR: work, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url });
      expect(plain.code).toBe(5);
      expect(plain.stdout).toBe('');
      expect(plain.stderr).toBe('error: too late (transaction_expired)\n');
    } finally {
      await server.close();
    }
  });
});
