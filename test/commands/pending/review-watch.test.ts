// `pending review --watch` in-process against a scripted service, with a virtual clock (every wait
// passes at once and is recorded) and a scripted prompter: a service that stops answering is
// tried again with backoff (1s, 2s … capped at 30s) until it answers, and only an auth failure
// ends the watch; `--notify-command` runs the user's command once per newly held transaction with
// what it is told only in its environment (no amount, no key), and one that fails or hangs is
// one line, never the end of the review. A real terminal across a real sandbox restart:
// review-restart-tty.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/clock.js';
import { NOTIFY_TIME_LIMIT_MS } from '../../../src/commands/pending/notify.js';
import { contexts, encryptTo } from '../../../src/crypto/ciphertext.js';
import { generateViewingKey } from '../../../src/crypto/viewing-key.js';
import { runCli, virtualClock } from '../../helpers/cli.js';
import { scriptedPrompter } from '../../helpers/prompter.js';
import type { Handler } from '../../helpers/scripted-server.js';
import { scriptedServices } from '../../helpers/scripted-env.js';

const ACCOUNT = { account_id: 'acct_1', handle: '@alice', type: 'personal', public_key: `0x${'1'.repeat(40)}`, kyc_status: 'verified', created_at: '2024-01-01T00:00:00Z' };
const AGENT = { account_id: 'acct_bot', handle: '@alice/bot', public_key: `0x${'2'.repeat(40)}`, status: 'active', spend_policy_id: 'pol_1' };
const POLICY = { policy_id: 'pol_1', hitl_threshold_usdc: 50, updated_at: '2024-01-01T00:00:00Z' };
/** A canary amount: decrypted for the screen, never in a notify command's environment. */
const AMOUNT_UNITS = '7319471100';
const viewing = generateViewingKey('test');

/** A held transaction of 7319.4711 USDG, expiring `minutes` from now, encrypted to the profile's viewing key. */
function heldTx(id: string, minutes: number) {
  return {
    transaction_id: id, agent: '@alice/bot', to: '@acme', asset: 'USDG',
    requested_at: new Date(Date.now() - 60_000).toISOString(),
    expires_at: new Date(Date.now() + minutes * 60_000).toISOString(),
    amount_ciphertext: encryptTo(viewing.publicKey, AMOUNT_UNITS, contexts.heldAmount(id, 'acct_1')),
  };
}

/** The service around the queue: `queue(n)` answers the n-th read of the pending list. */
function service(queue: (n: number) => ReturnType<Handler>): Handler {
  let reads = 0;
  return (req) => {
    if (req.method === 'GET' && req.url === '/v1/agents/transactions/pending') return queue(++reads);
    if (req.method === 'GET' && req.url === '/v1/accounts/me') return { status: 200, body: ACCOUNT };
    if (req.method === 'GET' && req.url === '/v1/accounts/me/agents') return { status: 200, body: { agents: [AGENT] } };
    if (req.method === 'GET' && req.url === '/v1/agents/acct_bot/spend-policy') return { status: 200, body: POLICY };
    return { status: 404, body: { error: { code: 'not_found', message: 'not here' } } };
  };
}

const serve = scriptedServices('svc-review-watch-', { SVC_DECRYPTION_KEY: viewing.decryptionKey });

/** Resolves when `check` holds, looked at whenever stderr grows (waiting on output, not on time). */
function whenStderr(check: (stderr: string) => boolean): { onStderr: (s: string) => void; reached: Promise<void> } {
  let text = '';
  let reach!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  return { onStderr: (s) => ((text += s), check(text) && reach()), reached };
}

describe('review --watch rides out a service that stops answering', () => {
  it('"reconnecting…" with backoff 1s, 2s, 4s … capped at 30s on the injected clock; picks up what is held after; a 401 then ends it (exit 3)', async () => {
    // Requests, not reads: the client tries a GET up to 3 times before a read fails. After the
    // first read, 30 requests fail (the connection dropped, then 503): 8 or more failed reads.
    const { env } = await serve(service((n) => {
      if (n === 1) return { status: 200, body: { pending: [] } };
      if (n <= 7) return 'reset';
      if (n <= 31) return { status: 503, body: { error: { code: 'server_error', message: 'restarting' } } };
      if (n === 32) return { status: 200, body: { pending: [heldTx('txn_after', 10)] } };
      return { status: 401, body: { error: { code: 'unauthorized', message: 'key revoked' } } };
    }));
    const clock = virtualClock();
    const prompter = scriptedPrompter(['skip']);
    const r = await runCli(['pending', 'review', '--watch', '--interval', '500ms'], { env, clock, prompter, tty: { stdin: true, stdout: true } });

    // What was shown once it came back: the transaction held meanwhile, amount decrypted here.
    expect(prompter.asked).toEqual(['Held transaction 1 of 1: txn_after']);
    expect(prompter.reviews[0]!.details).toContain('amount       7319.4711 USDG');
    const tries = r.stderr.split('\n').filter((l) => l.startsWith('reconnecting… '));
    expect(tries.length).toBeGreaterThanOrEqual(8);
    const delays = [1, 2, 4, 8, 16, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30].slice(0, tries.length);
    expect(tries).toEqual(delays.map((d, i) => `reconnecting… no answer (${i < 2 ? 'network_error' : 'HTTP 503, server_error'}); ${i + 1} ${i ? 'tries' : 'try'}, next in ${d}s`));
    // Each pause on the injected clock; the client's own short retries inside one read are below 1s.
    expect(clock.slept.filter((ms) => ms >= 1000)).toEqual(delays.map((d) => d * 1000));
    expect(r.stderr).toContain(`reconnected: the service answers again (after ${tries.length} failed tries)\n`);
    // Not transient: a revoked key ends the watch at once, with its error (and the tally so far).
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/approved 0, rejected 0, skipped 1, expired 0\nerror: key revoked \(unauthorized\)\n/);
  });
});

/** A clock whose long waits (a notify command's time limit) end only when the test says, or when aborted. */
function gatedClock(): Clock & { pending: () => number; expire: () => void } {
  const base = virtualClock();
  const gates = new Set<() => void>();
  return {
    now: base.now,
    sleep: (ms, signal) => {
      if (ms < NOTIFY_TIME_LIMIT_MS) return base.sleep(ms);
      return new Promise<void>((resolve) => {
        const done = () => (gates.delete(done), resolve());
        gates.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    },
    pending: () => gates.size,
    expire: () => [...gates].forEach((g) => g()),
  };
}

describe('--notify-command', () => {
  it('runs once per newly held transaction, told only through SVC_* variables (no amount, no key); a hanging or failing one is one line and review goes on', async () => {
    const [there, hang, fresh, fail] = [heldTx('txn_there', 12), heldTx('txn_hang', 13), heldTx('txn_new', 14), heldTx('txn_fail', 15)];
    const { env } = await serve(service((n) => {
      if (n === 1) return { status: 200, body: { pending: [there] } }; // there at the start: on screen already, not notified
      if (n === 2) return { status: 200, body: { pending: [there, hang] } };
      return { status: 200, body: { pending: [there, hang, fresh, fail] } };
    }));
    const out = join(env.SVC_CONFIG_DIR!, 'notified.txt');
    // The user's command line, as typed: the values come in the environment, not in the string.
    const command = [
      'case "$SVC_TRANSACTION_ID" in',
      '  txn_hang) sleep 30 ;;',
      '  txn_fail) echo "boom: webhook down" >&2; exit 3 ;;',
      '  *) env | sort >> "$OUT"; echo "stdout is not the screen"; echo --- >> "$OUT" ;;',
      'esac',
    ].join('\n');
    const clock = gatedClock();
    const prompter = scriptedPrompter(['skip', 'skip', 'skip', 'skip']);
    const stop = new AbortController();
    const watch = whenStderr((s) => s.includes('notify-command for txn_fail failed'));
    // Secrets of other kinds in svc's environment too: a webhook signing secret, a chat token.
    const others = { SVC_WEBHOOK_SECRET: 'whsec_canary4812', SLACK_BOT_TOKEN: 'xoxb-canary4812', DB_PASSWORD: 'pw-canary4812', GITHUB_API_KEY: 'ghk-canary4812' };
    const run = runCli(['pending', 'review', '--watch', '--interval', '500ms', '--notify-command', command], {
      env: { ...env, ...others, OUT: out }, clock, prompter, tty: { stdin: true, stdout: true }, interrupt: stop.signal, onStderr: watch.onStderr,
    });
    // The hanging one runs first (they run one at a time, in the order they came): its time limit passes.
    await until(() => clock.pending() > 0);
    clock.expire();
    await watch.reached;
    await until(() => existsSync(out) && readFileSync(out, 'utf8').includes('---') && prompter.asked.length === 4);
    stop.abort('SIGINT');
    const r = await run;

    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/interrupted: approved 0, rejected 0, skipped 4, expired 0\n$/);
    expect(prompter.asked, r.stderr).toEqual(['1 of 1: txn_there', '2 of 2: txn_hang', '3 of 4: txn_new', '4 of 4: txn_fail'].map((q) => `Held transaction ${q}`));
    expect(prompter.reviews[2]!.details).toContain('amount       7319.4711 USDG'); // known here, and kept here
    const notified = readFileSync(out, 'utf8');
    expect(notified.split('---\n')).toEqual([expect.any(String), '']); // once, for txn_new alone
    const told = notified.split('\n').filter((l) => /^SVC_(TRANSACTION_ID|AGENT|TO|EXPIRES_AT)=/.test(l));
    expect(told).toEqual(['SVC_AGENT=@alice/bot', `SVC_EXPIRES_AT=${fresh.expires_at}`, 'SVC_TO=@acme', 'SVC_TRANSACTION_ID=txn_new']);
    expect(notified).toContain(`OUT=${out}\n`); // svc's own environment, less its secrets
    expect(notified).not.toMatch(/7319\.4711|7319471100|SVC_API_KEY|SVC_DECRYPTION_KEY|svc_test_|svc_dk_/);
    expect(notified).not.toMatch(/canary4812|SVC_WEBHOOK_SECRET|SLACK_BOT_TOKEN|DB_PASSWORD|GITHUB_API_KEY/);
    expect(r.stderr).toContain('! notify-command for txn_hang did not finish within 10s: stopped\n');
    expect(r.stderr).toContain('! notify-command for txn_fail failed (exit 3): boom: webhook down\n');
    expect(r.stderr).not.toContain('stdout is not the screen');
    expect(r.stdout).toBe('');
  });

  it('an empty command is a usage error before anything is read (exit 2)', async () => {
    const { server, env } = await serve(service(() => ({ status: 200, body: { pending: [] } })));
    const r = await runCli(['pending', 'review', '--watch', '--notify-command', '  '], { env, tty: { stdin: true, stdout: true } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--notify-command must be a command line');
    expect(server.requests).toEqual([]);
  });
});

/** Waits for a condition on files or state, checking on each turn of the event loop. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}
