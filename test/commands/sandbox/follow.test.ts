// Issue 36, "Profiles that follow the sandbox": a profile svc made against a sandbox (`agent create
// --save-profile`, a `profile add` that took the running sandbox's URL) follows that sandbox (its
// state file) wherever it listens: `svc sandbox start` moves it, under the config lock. Only a
// svc_test_ key, only from and to a loopback URL, never a profile of the user's own. The sandbox
// runs in this process (`sandbox start` stopped as by Ctrl-C), so a port move is a real one.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, svcIn, type CliResult } from '../../helpers/cli.js';
import { refusedPort } from '../../helpers/scripted-server.js';

let configDir: string;
let env: Record<string, string>;
const running: Array<{ stop(): Promise<CliResult> }> = [];

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-follow-'));
  env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
});
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  rmSync(configDir, { recursive: true, force: true });
});

const svc = (args: string[], input?: string) => svcIn(args, env, input === undefined ? {} : { input });
type Stored = { apiKey?: string; baseUrl?: string; followsSandbox?: string; sandboxState?: string; account?: unknown };
const config = () => JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as { current: string | null; profiles: Record<string, Stored> };
const defaultState = () => join(configDir, 'sandbox', 'state.db');

function expectExit(r: CliResult, code: number): void {
  expect(r.code, `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(code);
}

interface Running {
  url: string;
  stderr(): string;
  /** Ctrl-C; resolves with what the start printed. */
  stop(): Promise<CliResult>;
}

/** `svc sandbox start …` in this process, until stop(). */
async function start(args: string[] = ['--port', '0']): Promise<Running> {
  const ctl = new AbortController();
  let err = '';
  let listening: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => (listening = resolve));
  const done = runCli(['sandbox', 'start', '--quiet', ...args], {
    env,
    interrupt: ctl.signal,
    onStderr: (text) => {
      err += text;
      const m = /svc sandbox listening on (\S+)/.exec(err);
      if (m) listening(m[1]!);
    },
  });
  const s = {
    url: await Promise.race([url, done.then((r) => Promise.reject(new Error(`sandbox start exited ${r.code}: ${r.stderr}`)))]),
    stderr: () => err,
    stop: async () => {
      ctl.abort('SIGTERM');
      const i = running.indexOf(s);
      if (i >= 0) running.splice(i, 1);
      return done;
    },
  };
  running.push(s);
  return s;
}

/** A port that is not `old`'s: the sandbox moves for sure (`--port 47312` in the issue). */
async function otherPort(old: string): Promise<string> {
  for (;;) {
    const port = String(await refusedPort());
    if (port !== new URL(old).port) return port;
  }
}

describe('profiles that follow the sandbox', () => {
  it('agent create --save-profile: the profile follows the sandbox to its new port; one of yours stays where you put it', async () => {
    const first = await start();
    const saved = await svc(['agent', 'create', 'payroll-bot', '--daily-limit', '500', '--save-profile', 'bot']);
    expectExit(saved, 0);
    // `profile add` without --base-url takes the running sandbox's URL: it follows too; with --base-url the URL is yours.
    const bobKey = (await svc(['sandbox', 'key', 'create', '--account', '@bob'])).stdout.trim();
    const taken = await svc(['profile', 'add', 'bobs', '--key-stdin'], `${bobKey}\n`);
    expectExit(taken, 0);
    expectExit(await svc(['--base-url', first.url, 'profile', 'add', 'mine', '--key-stdin'], `${bobKey}\n`), 0);

    // Marked by hand, each against a rule: a live key, a URL that is not loopback, another state.
    const c = config();
    c.profiles.forged = { apiKey: 'svc_live_ForgedLiveKey00000000000000001', baseUrl: first.url, followsSandbox: defaultState() };
    c.profiles.remote = { apiKey: bobKey, baseUrl: 'https://api.example.com', followsSandbox: defaultState() };
    c.profiles.other = { apiKey: bobKey, baseUrl: first.url, followsSandbox: join(configDir, 'other.db') };
    writeFileSync(join(configDir, 'config.json'), JSON.stringify(c), { mode: 0o600 });

    // The issue: `svc sandbox stop; svc sandbox start --port 47312`.
    expectExit(await first.stop(), 0);
    const second = await start(['--port', await otherPort(first.url), '--json']);
    expect(second.url).not.toBe(first.url);
    const after = config().profiles;
    expect(after.bot?.baseUrl).toBe(second.url);
    expect(after.bobs?.baseUrl).toBe(second.url);
    expect(after.sandbox?.baseUrl).toBe(second.url);
    for (const name of ['mine', 'forged', 'other']) expect(after[name]?.baseUrl, name).toBe(first.url);
    expect(after.remote?.baseUrl).toBe('https://api.example.com');

    // The moved profiles work at once: their keys, their decryption key, their remembered account.
    const who = await svc(['--json', '--profile', 'bot', 'account']);
    expectExit(who, 0);
    expect(JSON.parse(who.stdout).handle).toBe('@alice/payroll-bot');
    expectExit(await svc(['--profile', 'bot', 'balance']), 0);
    expect(JSON.parse((await svc(['--json', '--profile', 'bobs', 'account'])).stdout).handle).toBe('@bob');

    // Each says so: when saved, and when moved.
    expect(saved.stderr).toContain('saved profile "bot" for @alice/payroll-bot with its decryption key; it follows the sandbox wherever it listens\n');
    expect(taken.stderr).toContain(`  base URL: ${first.url} (the running sandbox); it follows the sandbox wherever it listens\n`);
    expect(after.bot?.followsSandbox).toBe(defaultState());
    expect(after.sandbox?.sandboxState).toBe(defaultState());
    expect(after.mine?.followsSandbox).toBeUndefined();
    expect(second.stderr()).toContain(`profiles "bobs", "bot" follow this sandbox: now ${second.url}\n`);
    const doc = JSON.parse((await second.stop()).stdout) as { following_profiles: string[] };
    expect(doc.following_profiles).toEqual(['bobs', 'bot']);
  });

  it('follows the state, not the name: a sandbox of another state file, or an ephemeral one, moves nobody', async () => {
    const state = join(configDir, 'elsewhere.db');
    const first = await start(['--port', '0', '--state', state, '--json']);
    expectExit(await svc(['agent', 'create', 'night-bot', '--save-profile', 'night']), 0);
    await first.stop();

    // The default state's sandbox, then an ephemeral one: neither holds night's key.
    for (const args of [['--port', '0'], ['--port', '0', '--ephemeral']]) {
      const s = await start(args);
      expect(s.stderr()).not.toContain('follow this sandbox');
      expect(config().profiles.night?.baseUrl).toBe(first.url);
      await s.stop();
    }
    // Its own state again: it follows.
    const again = await start(['--port', await otherPort(first.url), '--state', state]);
    expect(config().profiles.night?.baseUrl).toBe(again.url);
    expectExit(await svc(['--profile', 'night', 'account']), 0);
    expect(config().profiles.night?.followsSandbox).toBe(state);
  });
});
