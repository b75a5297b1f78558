// Messages that read the same everywhere (issue 15), in-process: sandbox log lines start with an
// ISO 8601 time on the sandbox clock; durations are written and read as `2s`, `1m30s` (help,
// defaults, errors, the start record); `webhook listen --forward-to` says in one line why a
// forward failed. No test waits in real time: Ctrl-C is injected, the sandbox clock is advanced.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { refusedPort } from '../helpers/scripted-server.js';

let configDir: string;
let env: Record<string, string>;
beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-messages-'));
  env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
});
afterEach(() => {
  rmSync(configDir, { recursive: true, force: true });
});

/** Runs a command that keeps running until Ctrl-C; resolves once stderr matches `ready`. */
async function startLongRunning(args: string[], ready: RegExp, extraEnv: Record<string, string> = {}, tty: { stdout?: boolean } = {}) {
  const ctrlC = new AbortController();
  let stderr = '';
  let stdout = '';
  const waiters: Array<() => void> = [];
  const poke = () => waiters.splice(0).forEach((w) => w());
  const done: Promise<CliResult> = runCli(args, {
    env: { ...env, ...extraEnv },
    tty,
    interrupt: ctrlC.signal,
    onStderr: (s) => ((stderr += s), poke()),
    onStdout: (s) => ((stdout += s), poke()),
  });
  const until = async (what: () => boolean) => {
    while (!what()) await new Promise<void>((r) => waiters.push(r));
  };
  await Promise.race([until(() => ready.test(stderr)), done.then((r) => Promise.reject(new Error(`ended early (${r.code}): ${r.stderr}`)))]);
  return {
    stderr: () => stderr,
    stdout: () => stdout,
    until,
    stop: async () => (ctrlC.abort('SIGINT'), done),
  };
}

const ISO = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z`;

describe('svc sandbox start: durations and timestamped log lines', () => {
  it('--block-time takes a duration, and the start record writes it as one', async () => {
    // On a terminal, the record a person reads; --json keeps its milliseconds field.
    const s = await startLongRunning(['sandbox', 'start', '--port', '0', '--ephemeral', '--quiet', '--block-time', '2s'], /listening on/, {}, { stdout: true });
    expect((await s.stop()).code).toBe(0);
    expect(s.stdout()).toMatch(/^\s*Block time\s+2s$/m);
    expect(s.stdout()).toMatch(/^\s*Approval window\s+15m$/m);
    const j = await startLongRunning(['--json', 'sandbox', 'start', '--port', '0', '--ephemeral', '--block-time', '1500ms'], /listening on/);
    expect((await j.stop()).code).toBe(0);
    expect(JSON.parse(j.stdout())).toMatchObject({ block_time_ms: 1500, approval_window_ms: 900_000 });
  });

  it('refuses a --block-time that is not a duration, naming the rule (exit 2, nothing started)', async () => {
    const r = await runCli(['sandbox', 'start', '--port', '0', '--ephemeral', '--block-time', 'soon'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --block-time "soon" must be a duration like 500ms, 30s, 2m, 1h, 1d or 1h30m (a bare number is seconds) (invalid_argument)\n');
    const w = await runCli(['sandbox', 'start', '--port', '0', '--ephemeral', '--approval-window', '0s'], { env });
    expect(w.code).toBe(2);
    expect(w.stderr).toBe('error: --approval-window "0s" must be a duration like 500ms, 30s, 2m, 1h, 1d or 1h30m (a bare number is seconds), more than 0s (invalid_argument)\n');
  });

  it('help and defaults show durations, never bare milliseconds', async () => {
    const r = await runCli(['sandbox', 'start', '--help'], { env });
    expect(r.code).toBe(0);
    const help = r.stdout + r.stderr;
    expect(help.replace(/\s+/g, ' ')).toContain('--block-time <duration> time from submission to settlement on the sandbox clock: a duration such as 500ms or 2s; a bare number is seconds (default: "1s500ms")');
    expect(help).toMatch(/--approval-window <duration>[\s\S]*\(default: "15m"\)/);
    expect(help).not.toMatch(/<ms>/);
    const global = await runCli(['--help'], { env });
    expect((global.stdout + global.stderr).replace(/\s+/g, ' ')).toContain('--timeout <duration> the most time spent on the network, retries included: a duration such as 30s or 2m; a bare number is seconds (default 30s)');
  });

  it('--verbose request lines start with the time on the sandbox clock (ISO 8601 UTC), which advance moves', async () => {
    const s = await startLongRunning(['--verbose', 'sandbox', 'start', '--port', '0', '--ephemeral'], /listening on/);
    try {
      const before = Date.now();
      expect((await runCli(['account'], { env })).code).toBe(0);
      await s.until(() => /GET \/v1\/accounts\/me 200/.test(s.stderr()));
      const line = s.stderr().split('\n').find((l) => l.includes('GET /v1/accounts/me 200'))!;
      expect(line).toMatch(new RegExp(`^${ISO} GET /v1/accounts/me 200 \\d+\\.\\dms req_[0-9a-f]{32}$`));
      expect(Math.abs(Date.parse(line.slice(0, 24)) - before)).toBeLessThan(60_000);

      // A day later on the sandbox clock: the log says so (it lines up with created_at and friends).
      expect((await runCli(['sandbox', 'clock', 'advance', '1d'], { env })).code).toBe(0);
      expect((await runCli(['transfer', 'ls'], { env })).code).toBe(0);
      await s.until(() => /GET \/v1\/transfers 200/.test(s.stderr()));
      const later = s.stderr().split('\n').find((l) => l.includes('GET /v1/transfers 200'))!;
      expect(later).toMatch(new RegExp(`^${ISO} GET /v1/transfers 200 `));
      expect(Date.parse(later.slice(0, 24)) - before).toBeGreaterThanOrEqual(86_400_000);
      // Every log line has the time; the start-up messages around them are not log lines.
      for (const l of s.stderr().split('\n').filter((x) => /^\S+ (GET|POST|PATCH|DELETE) \//.test(x))) expect(l).toMatch(new RegExp(`^${ISO} `));
    } finally {
      expect((await s.stop()).code).toBe(0);
    }
  });
});

describe('--timeout speaks durations', () => {
  it('an invalid value names the duration rule', async () => {
    const r = await runCli(['--timeout', 'soon', 'transfer', 'ls'], { env: { ...env, SVC_API_KEY: `svc_test_${'a'.repeat(32)}` } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --timeout "soon" must be a duration like 500ms, 30s, 2m, 1h, 1d or 1h30m (a bare number is seconds), more than 0s and at most 1d (invalid_argument)\n');
  });
});

describe('webhook listen --forward-to a closed port', () => {
  const SECRET = 'whsec_messagestest0000001';
  const post = (url: string, body: string) => {
    const u = new URL(url);
    const signature = createHmac('sha256', SECRET).update(body).digest('hex');
    return new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-service-signature': signature } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
  };

  it('one clear line per failure, `forward to <url> failed: connection refused`, and no stack', async () => {
    const target = `http://127.0.0.1:${await refusedPort()}/hooks`;
    const l = await startLongRunning(['webhook', 'listen', '--no-subscribe', '--secret-env', 'WH', '--forward-to', target], /listening on/, { WH: SECRET });
    try {
      const url = /listening on (http:\/\/\S+?)[;,\s]/.exec(l.stderr())![1]!;
      for (const id of ['evt_closed1', 'evt_closed2']) {
        const body = JSON.stringify({ event_id: id, event: 'transfer.confirmed', timestamp: new Date().toISOString() });
        expect(await post(url, body)).toBe(502); // the app could not be reached: a failure the service retries
      }
      await l.until(() => (l.stdout().match(/forward to/g) ?? []).length >= 2);
      const out = l.stdout().split('\n').filter(Boolean);
      const failures = out.filter((x) => x.includes('forward to'));
      expect(failures).toHaveLength(2);
      for (const f of failures) expect(f).toMatch(new RegExp(`^\\d{2}:\\d{2}:\\d{2}  ✗ forward to ${target.replace(/[./]/g, '\\$&')} failed: connection refused$`));
      expect(out.filter((x) => x.includes('evt_closed'))).toHaveLength(2); // each delivery's own line
      expect(l.stdout() + l.stderr()).not.toMatch(/ECONNREFUSED|\n\s+at /);
    } finally {
      await l.stop();
    }
  });
});
