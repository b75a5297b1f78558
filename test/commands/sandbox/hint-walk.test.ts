// Issue 36, "no hint names a command that the same state refuses": each failure on the paths of a
// profile made against the sandbox (the sandbox stopped or moved, the sandbox reset, a profile that
// is not the sandbox's own given to its admin commands) is walked hint by hint (helpers/hint-walk.ts):
// each `svc …` command a hint names is run in the same state, then the failing command again,
// until it works. The sandboxes are real processes (bin/svc.js, `npm run build` first): a hint may
// say `svc sandbox start` (run here with --port 0: the default port may be another test's) or
// `svc sandbox stop` (spawned too: it waits for the sandbox's end); every other command runs in
// this process.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { svcIn, type CliResult } from '../../helpers/cli.js';
import { runSvc, spawnSandbox } from '../../helpers/run.js';
import { refusedPort } from '../../helpers/scripted-server.js';
import { trailText, walkHints, type WalkStep } from '../../helpers/hint-walk.js';

let configDir: string;
let env: Record<string, string>;
const children: ChildProcess[] = [];

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-hint-walk-'));
  env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(configDir, { recursive: true, force: true });
});

const svc = (args: string[]) => svcIn(args, env);
const configFile = () => join(configDir, 'config.json');
const config = () => JSON.parse(readFileSync(configFile(), 'utf8')) as { current: string | null; profiles: Record<string, Record<string, unknown>> };

/** `svc … sandbox start …` as a process of its own; its result once it listens (exit 0), or once it has ended. */
async function startSandbox(argv: string[]): Promise<CliResult> {
  const args = argv.includes('--port') ? argv : [...argv, '--port', '0'];
  try {
    const s = await spawnSandbox([...args, '--quiet'], env);
    children.push(s.child);
    return { code: 0, stdout: '', stderr: s.stderr() };
  } catch (err) {
    const m = /^sandbox exited (\d+): ([\s\S]*)$/.exec((err as Error).message);
    return { code: Number(m?.[1] ?? 1), stdout: '', stderr: m?.[2] ?? String(err) };
  }
}

/** `svc … sandbox stop …` as a process of its own: it waits for the sandbox's end on the real clock. */
async function stopRun(argv: string[]): Promise<CliResult> {
  const r = await runSvc(argv, env);
  return { code: r.code ?? 1, stdout: r.stdout, stderr: r.stderr };
}

const names = (argv: string[], verb: string) => argv.join(' ').match(new RegExp(`(^| )sandbox ${verb}( |$)`)) !== null;
const walker = { run: (argv: string[]) => (names(argv, 'start') ? startSandbox(argv) : names(argv, 'stop') ? stopRun(argv) : svc(argv)) };

/** Walks the hints of `argv` and expects it to work in the end. */
async function expectWalkEndsWorking(argv: string[]): Promise<WalkStep[]> {
  const trail = await walkHints(walker, argv);
  expect(trail.at(-1)!.code, `\`svc ${argv.join(' ')}\` does not work after its hints:\n${trailText(trail)}`).toBe(0);
  return trail;
}

const commandsRun = (trail: WalkStep[]) => trail.map((s) => s.argv.join(' '));

/** A sandbox with `bot`, an agent's profile made with --save-profile (it follows the sandbox). */
async function withBot(): Promise<void> {
  expect((await startSandbox(['sandbox', 'start'])).code).toBe(0);
  const r = await svc(['agent', 'create', 'payroll-bot', '--save-profile', 'bot']);
  expect(r.code, r.stderr).toBe(0);
}

async function stopSandbox(): Promise<void> {
  const r = await stopRun(['sandbox', 'stop']);
  expect(r.code, r.stderr).toBe(0);
}

describe('hints on the paths of a profile made against the sandbox', () => {
  it('the sandbox stopped: each failure of `bot` names a command that starts the sandbox it follows, and then it works', async () => {
    await withBot();
    for (const argv of [['--profile', 'bot', 'account'], ['--profile', 'bot', 'sandbox', 'key', 'ls'], ['--profile', 'bot', 'balance']]) {
      await stopSandbox();
      const trail = await expectWalkEndsWorking(argv);
      expect(commandsRun(trail)).toContain('--profile bot sandbox start');
    }
    // `bot` current, no --profile: the hint names it, as `sandbox start` alone would start another profile's sandbox.
    expect((await svc(['profile', 'use', 'bot'])).code).toBe(0);
    await stopSandbox();
    const trail = await expectWalkEndsWorking(['account']);
    expect(commandsRun(trail)).toContain('--profile bot sandbox start');
  });

  it('the sandbox reset: `bot` says its key is gone and names the one command that makes a working one; the admin commands take it', async () => {
    await withBot();
    for (const argv of [['--profile', 'bot', 'account'], ['--profile', 'bot', 'balance']]) {
      const reset = await svc(['--yes', 'sandbox', 'reset']);
      expect(reset.code, reset.stderr).toBe(0);
      expect(reset.stderr).toContain('note: profile "bot" holds a key this sandbox does not have (a sandbox reset replaces every key): make a working one (a new agent: give it its policy flags) with `svc --profile sandbox agent create payroll-bot --save-profile bot --force`\n');
      const trail = await expectWalkEndsWorking(argv);
      expect(trail[0]!.stderr).toContain('hint: profile "bot" holds a key this sandbox does not have');
      expect(commandsRun(trail)).toEqual([argv.join(' '), '--profile sandbox agent create payroll-bot --save-profile bot --force', argv.join(' ')]);
    }
    // The circle of the issue: `--profile bot sandbox key create …` acts on the sandbox bot follows.
    expect((await svc(['--yes', 'sandbox', 'reset'])).code).toBe(0);
    await expectWalkEndsWorking(['--profile', 'bot', 'sandbox', 'key', 'create', '--account', '@alice']);
  });

  it('a profile made before profiles followed (no mark) at a dead port: the hints point it at the sandbox, never at a refused start', async () => {
    await withBot();
    const deadUrl = `http://127.0.0.1:${await refusedPort()}`;
    const c = config();
    const { followsSandbox: _mark, account: _account, ...legacy } = c.profiles.bot!;
    c.profiles.old = { ...legacy, baseUrl: deadUrl };
    c.profiles.older = { ...legacy, baseUrl: deadUrl };
    writeFileSync(configFile(), JSON.stringify(c), { mode: 0o600 });
    // The sandbox runs elsewhere.
    let trail = await expectWalkEndsWorking(['--profile', 'old', 'account']);
    expect(commandsRun(trail)).toContain('profile set old --follow-sandbox');
    // No sandbox runs: start one (not with this profile: `sandbox start` would refuse it), then point it there.
    await stopSandbox();
    trail = await expectWalkEndsWorking(['--profile', 'older', 'account']);
    expect(commandsRun(trail)).toEqual(expect.arrayContaining(['sandbox start', 'profile set older --follow-sandbox']));
    expect(commandsRun(trail)).not.toContain('--profile older sandbox start');
  });

  it('not a sandbox profile: the admin commands name the sandbox\'s own profile, or a start that works', async () => {
    await withBot();
    const bobKey = (await svc(['sandbox', 'key', 'create', '--account', '@bob'])).stdout.trim();
    const url = config().profiles.sandbox!.baseUrl as string;
    expect((await svcIn(['--base-url', url, 'profile', 'add', 'mine', '--key-stdin'], env, { input: `${bobKey}\n` })).code).toBe(0);
    for (const argv of [['--profile', 'mine', 'sandbox', 'key', 'ls'], ['--profile', 'nobody', 'sandbox', 'clock']]) {
      const trail = await walkHints(walker, argv);
      expect(trail, trailText(trail)).toHaveLength(1); // no command to run: the words say which profile
      expect(trail[0]!.stderr).toMatch(/\(no_sandbox_profile\)\nhint: the admin commands act through the sandbox's own profile: run it with --profile sandbox \(or without --profile\)\n$/);
      const named = argv.slice(2);
      expect((await svc(['--profile', 'sandbox', ...named])).code).toBe(0);
    }
    // No sandbox profile at all: the hint starts one (without this profile, which it would refuse).
    await stopSandbox();
    const c = config();
    delete c.profiles.sandbox;
    writeFileSync(configFile(), JSON.stringify(c), { mode: 0o600 });
    const trail = await walkHints(walker, ['--profile', 'mine', 'sandbox', 'clock']);
    expect(commandsRun(trail)).toContain('sandbox start');
    expect(trail.every((s) => s.error !== 'profile_exists'), trailText(trail)).toBe(true);
    expect(trail.at(-1)!.stderr).toContain('run it with --profile sandbox');
  });
});
