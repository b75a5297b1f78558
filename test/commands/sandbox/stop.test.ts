// `svc sandbox stop`: real processes (the sandbox and the stop command are both spawned
// bin/svc.js, `npm run build` first), since what is tested is one process stopping another.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSvc, spawnSandbox, type SpawnedSandbox } from '../../helpers/run.js';
import { refusedPort } from '../../helpers/scripted-server.js';

let configDir: string;
let env: Record<string, string>;
const children: ChildProcess[] = [];

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-sbx-stop-'));
  env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(configDir, { recursive: true, force: true });
});

async function start(args: string[] = []): Promise<SpawnedSandbox> {
  const s = await spawnSandbox(['sandbox', 'start', '--port', '0', '--quiet', ...args], env);
  children.push(s.child);
  return s;
}

const exited = (s: SpawnedSandbox) => new Promise<number | null>((resolve) => {
  if (s.child.exitCode !== null) resolve(s.child.exitCode);
  else s.child.once('exit', (code) => resolve(code));
});
const config = () => JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as { current: string | null; profiles: Record<string, { baseUrl?: string }> };

describe('svc sandbox stop', () => {
  it('with no sandbox running: sandbox_not_running, exit 4, nothing else', async () => {
    const r = await runSvc(['sandbox', 'stop'], env);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: no sandbox is running for this config directory \(sandbox_not_running\)\n/);
    expect(r.stdout).toBe('');
    const j = await runSvc(['--json', 'sandbox', 'stop'], env);
    expect(j.code).toBe(4);
    expect(JSON.parse(j.stderr).error.code).toBe('sandbox_not_running');
  });

  it('stops a running sandbox cleanly (SIGTERM, waits for it), then says so; its state is kept', async () => {
    const s = await start();
    const exit = exited(s);
    const r = await runSvc(['sandbox', 'stop'], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`stopped the sandbox at ${s.url} (process ${s.child.pid})\n`);
    // The stop command returned only once the sandbox had ended, by its own clean shutdown.
    expect(s.child.exitCode ?? s.child.signalCode).not.toBeNull();
    expect(await exit).toBe(0);
    expect(s.stderr()).toContain('sandbox stopped\n');
    expect(existsSync(join(configDir, 'sandbox', 'state.db'))).toBe(true);
    expect(readdirSync(join(configDir, 'sandbox', 'running'))).toEqual([]);
    // Stopped: a second stop finds nothing.
    expect((await runSvc(['sandbox', 'stop'], env)).code).toBe(4);
  });

  it('never signals a process that does not answer as a sandbox at the recorded URL (a reused pid): sandbox_not_answering, exit 1', async () => {
    // A record naming a live process that is no sandbox: this test's own.
    const dir = join(configDir, 'sandbox', 'running');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify({ pid: process.pid, url: `http://127.0.0.1:${await refusedPort()}`, profile: 'sandbox', ephemeral: true }), { mode: 0o600 });
    const r = await runSvc(['sandbox', 'stop'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`process ${process.pid} is recorded as the sandbox at`);
    expect(r.stderr).toContain('nothing was signalled (sandbox_not_answering)');
  });

  it('a record with its nonce whose URL refuses connections: sandbox_not_answering, exit 1, nothing on stdout, nothing signalled', async () => {
    const bystander = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    children.push(bystander);
    const dir = join(configDir, 'sandbox', 'running');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, `${bystander.pid}.json`), JSON.stringify({ pid: bystander.pid, url: `http://127.0.0.1:${await refusedPort()}`, profile: 'sandbox', ephemeral: true, instance: 'b'.repeat(32) }), { mode: 0o600 });
    const r = await runSvc(['sandbox', 'stop'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`process ${bystander.pid} is recorded as the sandbox at`);
    expect(r.stderr).toContain('nothing was signalled (sandbox_not_answering)');
    expect(bystander.exitCode).toBeNull();
    expect(bystander.signalCode).toBeNull();
  });

  it('a stale record whose pid now belongs to another program, with another sandbox at its URL: that program is not signalled', async () => {
    // Another sandbox (another config dir) answers at the URL; the recorded pid is a live bystander.
    const otherDir = mkdtempSync(join(tmpdir(), 'svc-sbx-other-'));
    const other = await spawnSandbox(['sandbox', 'start', '--port', '0', '--quiet', '--ephemeral'], { SVC_CONFIG_DIR: otherDir, NO_COLOR: '1' });
    children.push(other.child);
    const bystander = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    children.push(bystander);
    try {
      const dir = join(configDir, 'sandbox', 'running');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(join(dir, `${bystander.pid}.json`), JSON.stringify({ pid: bystander.pid, url: other.url, profile: 'sandbox', ephemeral: true, instance: 'a'.repeat(32) }), { mode: 0o600 });
      const r = await runSvc(['sandbox', 'stop'], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('nothing was signalled (sandbox_not_answering)');
      expect(bystander.exitCode).toBeNull();
      expect(bystander.signalCode).toBeNull();
      expect(() => process.kill(bystander.pid!, 0)).not.toThrow(); // still alive
      expect(other.child.exitCode).toBeNull(); // nor the other sandbox
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('--json prints one document naming what it stopped', async () => {
    const s = await start(['--ephemeral']);
    const r = await runSvc(['--json', 'sandbox', 'stop'], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ stopped: true, pid: s.child.pid, url: s.url, profile: 'sandbox', ephemeral: true });
    expect(await exited(s)).toBe(0);
  });

  it('several running: refused without --pid (exit 2, none stopped); --pid picks one', async () => {
    const a = await start(['--ephemeral']);
    const b = await start(['--ephemeral', '--profile', 'other']);
    const r = await runSvc(['sandbox', 'stop'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`2 sandboxes are running (processes ${[a.child.pid, b.child.pid].sort((x, y) => x! - y!).join(', ')}): name one with --pid`);
    expect(a.child.exitCode).toBeNull();
    expect(b.child.exitCode).toBeNull();
    const one = await runSvc(['sandbox', 'stop', '--pid', String(b.child.pid)], env);
    expect(one.code).toBe(0);
    expect(await exited(b)).toBe(0);
    expect(a.child.exitCode).toBeNull();
    expect((await runSvc(['sandbox', 'stop'], env)).code).toBe(0);
    expect(await exited(a)).toBe(0);
  });
});

describe('an ephemeral sandbox that made its profile current hands it back when it stops', () => {
  it('by `svc sandbox stop`: the current profile no longer points at the dead port', async () => {
    const s = await start(['--ephemeral']);
    expect(config().current).toBe('sandbox');
    const r = await runSvc(['sandbox', 'stop'], env);
    expect(r.code).toBe(0);
    expect(await exited(s)).toBe(0);
    expect(config().current).toBeNull();
    expect(s.stderr()).toContain('profile "sandbox" is no longer current\n');
    // A command after it is not sent to the dead port (connection refused, exit 7): no profile is current.
    const after = await runSvc(['account'], env);
    expect(after.code).toBe(3);
    expect(after.stderr).not.toContain('could not reach');
  });

  it('by Ctrl-C as well', async () => {
    const s = await start(['--ephemeral']);
    expect(config().current).toBe('sandbox');
    expect(await s.stop('SIGINT')).toBe(0);
    expect(config().current).toBeNull();
  });

  it('to the profile current before it: a sandbox of another profile started meanwhile keeps nothing dangling', async () => {
    // A persistent sandbox is current; an ephemeral one under another name does not take over, so stopping it changes nothing.
    const p = await start();
    expect(config().current).toBe('sandbox');
    const e = await start(['--ephemeral', '--profile', 'scratch']);
    expect(config().current).toBe('sandbox');
    expect((await runSvc(['sandbox', 'stop', '--pid', String(e.child.pid)], env)).code).toBe(0);
    expect(await exited(e)).toBe(0);
    expect(config().current).toBe('sandbox');
    expect(config().profiles.sandbox?.baseUrl).toBe(p.url);
  });

  it('an ephemeral sandbox that replaced a persistent sandbox\'s profile puts it back when it stops, keys and all', async () => {
    const p = await start();
    const before = config().profiles.sandbox as { baseUrl?: string; apiKey?: string; decryptionKey?: string };
    const e = await start(['--ephemeral']);
    expect(config().profiles.sandbox?.baseUrl).toBe(e.url);
    expect((await runSvc(['sandbox', 'stop', '--pid', String(e.child.pid)], env)).code).toBe(0);
    expect(await exited(e)).toBe(0);
    expect(e.stderr()).toContain(`profile "sandbox" is back to what it was before this sandbox (${p.url})\n`);
    expect(config().profiles.sandbox).toEqual(before);
    expect(config().current).toBe('sandbox');
    // It works again: the persistent sandbox, still running, knows the restored key.
    const account = await runSvc(['--json', 'account'], env);
    expect(account.code).toBe(0);
    expect(JSON.parse(account.stdout).handle).toBe('@alice');
  });

  it('a profile changed while the ephemeral sandbox ran is the user\'s newer choice: not put back', async () => {
    await start();
    const e = await start(['--ephemeral']);
    const changed = { ...config(), profiles: { ...config().profiles, sandbox: { ...config().profiles.sandbox, baseUrl: 'http://127.0.0.1:1' } } };
    writeFileSync(join(configDir, 'config.json'), JSON.stringify(changed), { mode: 0o600 });
    expect(await e.stop('SIGINT')).toBe(0);
    expect(config().profiles.sandbox?.baseUrl).toBe('http://127.0.0.1:1');
    expect(e.stderr()).not.toContain('is back to what it was');
  });

  it('a persistent sandbox keeps its profile current (it comes back on the same state)', async () => {
    const s = await start();
    expect((await runSvc(['sandbox', 'stop'], env)).code).toBe(0);
    expect(await exited(s)).toBe(0);
    expect(config().current).toBe('sandbox');
  });
});
