// Every duration flag reads a value the same way (issue 32: `--timeout 20` was 20 ms): a bare
// number is seconds, as curl's --max-time reads it, and a bad value is refused before anything
// is sent or started (exit 2, invalid_argument, one line naming the flag and the rule). In
// process, against scripted servers that record every request; the one real wait is the
// server's own 150 ms pause.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/config/profiles.js';
import { signPayload } from '../../src/crypto/webhook-signature.js';
import { DURATION_RULE } from '../../src/domain/duration.js';
import { runCli, virtualClock } from '../helpers/cli.js';
import { answeringAccount, startScriptedServer, UNKNOWN_TEST_KEY, type ScriptedServer } from '../helpers/scripted-server.js';

// One config dir for the runs that keep nothing apart (each send has its own idempotency key).
const shared = mkdtempSync(join(tmpdir(), 'svc-durations-'));
afterAll(() => rmSync(shared, { recursive: true, force: true }));

const lines = (s: string) => s.split('\n').filter(Boolean);
const PENDING = { transfer_id: 'tr_dur1', status: 'pending', to: '@acme', confidential: true, tx_hash: '0x1', created_at: '2026-02-01T00:00:00Z' };
/** The server's pause before it answers: real time, longer than 20 ms, far shorter than 20 s. */
const SLOW_MS = 150;
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, SLOW_MS));

describe('--timeout: a bare number is seconds, like curl --max-time', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    // Accepts a transfer after SLOW_MS; every other GET is the pending transfer, at once.
    server = await startScriptedServer(answeringAccount(async (req) => {
      if (req.method !== 'POST') return { status: 200, body: PENDING };
      await pause();
      return { status: 201, body: PENDING };
    }));
  });
  afterAll(() => server.close());
  const env = () => ({ SVC_CONFIG_DIR: shared, SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url, NO_COLOR: '1' });
  const posts = () => server.requests.filter((q) => q.method === 'POST');

  it('`--timeout 20` is 20 seconds: a transfer the server accepts after 150 ms is sent and reported (exit 0)', async () => {
    const before = posts().length;
    const r = await runCli(['--json', '--timeout', '20', 'transfer', 'send', '@acme', '1', '--idempotency-key', 'dur-20'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ transfer_id: 'tr_dur1', status: 'pending', idempotency_key: 'dur-20' });
    expect(posts().length - before).toBe(1);
  });

  it('the pause is real: `--timeout 20ms` against the same server runs out (exit 7, timeout)', async () => {
    const r = await runCli(['--json', '--timeout', '20ms', 'transfer', 'send', '@acme', '1', '--idempotency-key', 'dur-20ms'], { env: env() });
    expect(r.code, r.stderr).toBe(7);
    expect(JSON.parse(lines(r.stderr).at(-1)!).error).toMatchObject({ code: 'timeout', message: expect.stringContaining('within the --timeout of 20ms') });
  });

  it('a decimal number of seconds: `--timeout 0.5` is 500 ms (the message says so)', async () => {
    const hanging = await startScriptedServer(() => 'hang');
    try {
      const r = await runCli(['--timeout', '0.5', 'account'], { env: { ...env(), SVC_BASE_URL: hanging.url } });
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(/^error: no answer from 127\.0\.0\.1:\d+ within the --timeout of 500ms \(retries included\) \(timeout\)$/m);
    } finally {
      await hanging.close();
    }
  });

  it('--timeout-wait 1 is one second of waiting (on the tool\'s clock)', async () => {
    const r = await runCli(['transfer', 'send', '@acme', '1', '--wait', '--timeout-wait', '1', '--idempotency-key', 'dur-wait'], { env: env(), clock: virtualClock(Date.parse('2030-01-01T00:00:00Z')) });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^error: gave up waiting for transfer tr_dur1 after 1s: it is still pending; idempotency key dur-wait \(wait_timeout\)$/m);
  });
});

describe('--tolerance: a bare number is seconds', () => {
  const SECRET = 'whsec_durations0000000001';
  const NOW = Date.parse('2030-01-01T00:00:00Z');
  const body = JSON.stringify({ event: 'transfer.confirmed', timestamp: new Date(NOW - 240_000).toISOString() }); // 4 minutes old
  const verify = (tolerance: string) => runCli(['webhook', 'verify', '--secret-env', 'S', '--signature', signPayload(SECRET, body), '--tolerance', tolerance], { env: { S: SECRET, SVC_CONFIG_DIR: shared }, input: body, clock: virtualClock(NOW) });

  it('300 takes a body 4 minutes old; 200 does not', async () => {
    expect((await verify('300')).code).toBe(0);
    const stale = await verify('200');
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/outside the 3m20s tolerance .* \(stale_timestamp\)$/m);
  });
});

describe('every duration flag refuses a bad value before anything is sent: exit 2, invalid_argument, the flag and the rule', () => {
  let server: ScriptedServer;
  let configDir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startScriptedServer(() => ({ status: 500, body: { error: { code: 'should_not_be_called', message: 'nothing should be sent' } } }));
    configDir = join(shared, 'refusals');
    // A sandbox profile pointing at the recording server: the admin commands would go there too.
    await new ProfileStore(configDir).set('sandbox', { apiKey: UNKNOWN_TEST_KEY, baseUrl: server.url, sandboxAdminToken: 'admin_durations' }, { makeCurrent: true });
    env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1', S: 'whsec_x' };
  });
  afterAll(() => server.close());
  afterEach(() => {
    const sent = server.requests.splice(0).map((q) => `${q.method} ${q.url}`);
    expect(sent).toEqual([]);
  });

  const BOUNDS: Record<string, string> = {
    '--timeout': ', more than 0s and at most 1d',
    '--timeout-wait': ', more than 0s and at most 1d',
    '--interval': ', at least 200ms and at most 1d',
    '--approval-window': ', more than 0s',
    '<duration>': ', at most 3650d',
  };
  const cases: Array<[string, string, string[]]> = [
    ['--timeout', '0', ['--timeout', '0', 'account']],
    ['--timeout', '20 s', ['--timeout', '20 s', 'transfer', 'send', '@acme', '1']],
    ['--timeout', '86401', ['--timeout', '86401', 'transfer', 'ls']],
    ['--timeout-wait', '0', ['transfer', 'send', '@acme', '1', '--wait', '--timeout-wait', '0']],
    ['--timeout-wait', '25h', ['transfer', 'get', 'tr_1', '--wait', '--timeout-wait', '25h']],
    ['--timeout-wait', '1.5m', ['pending', 'wait', 'txn_1', '--timeout-wait', '1.5m']],
    ['--interval', '0.1', ['pending', 'review', '--watch', '--interval', '0.1']],
    ['--block-time', 'soon', ['sandbox', 'start', '--port', '0', '--ephemeral', '--block-time', 'soon']],
    ['--block-time', '-1', ['sandbox', 'start', '--port', '0', '--ephemeral', '--block-time', '-1']],
    ['--approval-window', '0', ['sandbox', 'start', '--port', '0', '--ephemeral', '--approval-window', '0']],
    ['--tolerance', '5 min', ['webhook', 'verify', '--secret-env', 'S', '--signature', 'ab'.repeat(32), '--tolerance', '5 min']],
    ['--tolerance', 'soon', ['webhook', 'listen', '--tolerance', 'soon']],
    ['<duration>', '3651d', ['sandbox', 'clock', 'advance', '3651d']],
    ['<duration>', '1y', ['sandbox', 'clock', 'advance', '1y']],
  ];

  it.each(cases)('%s %j', async (flag, value, args) => {
    const before = readdirSync(configDir).sort();
    const r = await runCli(args, { env, input: '{}', tty: { stdin: args.includes('review'), stdout: args.includes('review') } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: ${flag} "${value}" must be ${DURATION_RULE}${BOUNDS[flag] ?? ''} (invalid_argument)\n`);
    expect(readdirSync(configDir).sort()).toEqual(before); // nothing written, nothing started
  });

  it('--json: the one error object carries the code', async () => {
    const r = await runCli(['--json', '--timeout', 'soon', 'account'], { env });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'invalid_argument', message: `--timeout "soon" must be ${DURATION_RULE}${BOUNDS['--timeout']}` });
  });
});

describe('sandbox start: a bare number is seconds', () => {
  it('--block-time 2 is two seconds (the start record says 2s)', async () => {
    const ctrlC = new AbortController();
    let stderr = '';
    const done = runCli(['--json', 'sandbox', 'start', '--port', '0', '--ephemeral', '--block-time', '2', '--approval-window', '90'], {
      env: { SVC_CONFIG_DIR: shared, NO_COLOR: '1' },
      interrupt: ctrlC.signal,
      onStderr: (s) => {
        stderr += s;
        if (/listening on/.test(stderr)) ctrlC.abort('SIGINT');
      },
    });
    const r = await done;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ block_time_ms: 2_000, approval_window_ms: 90_000 });
  });
});
