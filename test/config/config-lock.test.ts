// Writes to config.json take the config lock (config.json.lock, as git's config.lock): real
// processes adding and removing different profiles at once lose nothing; a held lock is waited
// for (on the injected clock) and then refused with config_locked; a dead process's lock is
// taken over; the lock is 0600 and released on every way out.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/config/profiles.js';
import { runCli, virtualClock } from '../helpers/cli.js';
import { runSvc } from '../helpers/run.js';

const KEY = 'svc_test_LockTestKey000000000000001';
const BASE = 'http://127.0.0.1:46630';

let root: string;
let dir: string;
let file: string;
let lock: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-config-lock-'));
  dir = join(root, 'config');
  mkdirSync(dir, { mode: 0o700 });
  file = join(dir, 'config.json');
  lock = `${file}.lock`;
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const names = (): string[] => Object.keys((JSON.parse(readFileSync(file, 'utf8')) as { profiles: object }).profiles).sort();
const writeProfiles = (list: string[]) =>
  writeFileSync(file, JSON.stringify({ current: null, profiles: Object.fromEntries(list.map((n) => [n, { apiKey: KEY, baseUrl: BASE }])) }), { mode: 0o600 });

/** The pid of a process that has ended (not reused this soon). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('concurrent writers (real processes)', () => {
  it('30 rounds of two `profile add` and two `profile rm` at once: no update is lost', async () => {
    const rounds = 30;
    const old = Array.from({ length: rounds }, (_, r) => [`old${r}a`, `old${r}b`]).flat();
    writeProfiles(old);
    const env = { SVC_CONFIG_DIR: dir, NO_COLOR: '1' };
    const expected = new Set(old);
    for (let r = 0; r < rounds; r++) {
      const results = await Promise.all([
        runSvc(['profile', 'add', `new${r}a`, '--key-stdin', '--no-verify'], env, { input: `${KEY}\n` }),
        runSvc(['profile', 'add', `new${r}b`, '--key-stdin', '--no-verify'], env, { input: `${KEY}\n` }),
        runSvc(['--yes', 'profile', 'rm', `old${r}a`], env),
        runSvc(['--yes', 'profile', 'rm', `old${r}b`], env),
      ]);
      for (const res of results) expect(res.code, res.stderr).toBe(0);
      for (const n of [`new${r}a`, `new${r}b`]) expected.add(n);
      for (const n of [`old${r}a`, `old${r}b`]) expected.delete(n);
      expect(names(), `round ${r}`).toEqual([...expected].sort());
    }
    expect(existsSync(lock)).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The file holds nothing but the profiles: no temp file or lock is left beside it.
    expect(readdirSync(dir)).toEqual(['config.json']);
  }, 180_000);
});

describe('a lock held by another process', () => {
  it('is waited for, then refused with config_locked (exit 5); nothing is changed and the lock is left alone', async () => {
    writeProfiles(['keep']);
    const before = readFileSync(file, 'utf8');
    // A live process (this one) holds it.
    writeFileSync(lock, `${process.pid} ${hostname()}\n`, { mode: 0o600 });
    const cases: string[][] = [
      ['profile', 'add', 'new', '--key-stdin', '--no-verify'],
      ['profile', 'use', 'keep'],
      ['--yes', 'profile', 'rm', 'keep'],
    ];
    for (const argv of cases) {
      const clock = virtualClock();
      const r = await runCli(argv, { env: { SVC_CONFIG_DIR: dir }, input: `${KEY}\n`, clock });
      expect([r.code, r.stdout], r.stderr).toEqual([5, '']);
      expect(r.stderr).toBe(
        `error: could not lock the config: ${lock} is held by process ${process.pid} (waited 5s); nothing was changed (config_locked)\n` +
          `hint: try again; if no svc is running, remove ${lock}\n`,
      );
      // It waited 5 s on the injected clock, in short pauses, not at once and not forever.
      const waited = clock.slept.reduce((a, b) => a + b, 0);
      expect(waited).toBeGreaterThanOrEqual(5_000);
      expect(waited).toBeLessThan(5_100);
      expect(clock.slept.every((ms) => ms > 0 && ms < 100)).toBe(true);

      const j = await runCli(['--json', ...argv], { env: { SVC_CONFIG_DIR: dir }, input: `${KEY}\n`, clock: virtualClock() });
      expect([j.code, j.stdout]).toEqual([5, '']);
      expect(JSON.parse(j.stderr)).toMatchObject({ error: { code: 'config_locked' } });
    }
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid} ${hostname()}\n`);
  });

  it('is taken over when its process has died', async () => {
    writeProfiles(['keep']);
    writeFileSync(lock, `${deadPid()} ${hostname()}\n`, { mode: 0o600 });
    const r = await runCli(['profile', 'add', 'new', '--key-stdin', '--no-verify'], { env: { SVC_CONFIG_DIR: dir }, input: `${KEY}\n`, clock: virtualClock() });
    expect(r.code, r.stderr).toBe(0);
    expect(names()).toEqual(['keep', 'new']);
    expect(existsSync(lock)).toBe(false);
  });
});

describe('the lock itself', () => {
  it('is 0600 while held, and released on every way out: a change, a refused change, a failure', async () => {
    const store = new ProfileStore(dir, { clock: virtualClock() });
    let mode = 0;
    let content = '';
    await store.update((config) => {
      mode = statSync(lock).mode & 0o777;
      content = readFileSync(lock, 'utf8');
      config.set('a', { apiKey: KEY, baseUrl: BASE });
    });
    expect(mode).toBe(0o600);
    expect(content).toBe(`${process.pid} ${hostname()}\n`);
    expect(existsSync(lock)).toBe(false);
    expect(names()).toEqual(['a']);

    // What the change throws leaves the file as it was, and the lock released.
    const before = readFileSync(file, 'utf8');
    await expect(store.update((config) => {
      config.set('b', { apiKey: KEY, baseUrl: BASE });
      throw new Error('refused');
    })).rejects.toThrow('refused');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(existsSync(lock)).toBe(false);
    await expect(store.use('nope')).rejects.toMatchObject({ code: 'profile_not_found' });
    expect(existsSync(lock)).toBe(false);

    // A failure inside (config.json's place taken by a directory) releases it too.
    rmSync(file);
    mkdirSync(file);
    await expect(store.set('c', { apiKey: KEY, baseUrl: BASE })).rejects.toThrow();
    expect(existsSync(lock)).toBe(false);
  });

  it('a lock file that is a symbolic link is refused, never followed (unsafe_config)', async () => {
    writeProfiles(['keep']);
    const target = join(root, 'elsewhere');
    writeFileSync(target, 'precious\n');
    symlinkSync(target, lock);
    const r = await runCli(['profile', 'add', 'new', '--key-stdin', '--no-verify'], { env: { SVC_CONFIG_DIR: dir }, input: `${KEY}\n`, clock: virtualClock() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: the lock file .*config\.json\.lock is a symbolic link; refusing to use it \(unsafe_config\)\n/);
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    expect(names()).toEqual(['keep']);
  });
});

// The cache of a key's account is written only when the lock is free: a command never waits
// for it (it would only cost a request next time).
describe('a cache write', () => {
  it('does not wait for a held lock', async () => {
    const store = new ProfileStore(dir, { clock: virtualClock() });
    await store.set('a', { apiKey: KEY, baseUrl: BASE });
    writeFileSync(lock, `${process.pid} ${hostname()}\n`, { mode: 0o600 });
    expect(store.updateIfFree((config) => config.set('b', { apiKey: KEY, baseUrl: BASE }))).toBe(false);
    rmSync(lock);
    expect(store.updateIfFree((config) => config.set('b', { apiKey: KEY, baseUrl: BASE }))).toBe(true);
    expect(names()).toEqual(['a', 'b']);
  });
});
