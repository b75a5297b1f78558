// Another program holds the sandbox database's write lock (as the sqlite3 shell, a DB browser or a
// backup does with BEGIN IMMEDIATE) while a real sandbox process is writing: nothing acknowledged
// is lost. The sandbox waits for the lock (up to its busy timeout), its periodic flush of key-use
// counts tries again a second later, the writes made during and after the hold are answered and
// found after a restart; and a stop while the lock is still held does not claim that every
// change is saved. The lock is held by a child node process through libsql.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ROOT, spawnSandbox, type SpawnedSandbox } from '../helpers/run.js';

let dir: string;
let env: Record<string, string>;
let statePath: string;
const live: Array<SpawnedSandbox | LockHolder> = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sbx-contention-'));
  env = { SVC_CONFIG_DIR: dir, NO_COLOR: '1' };
  statePath = join(dir, 'sandbox', 'state.db');
});
afterEach(async () => {
  for (const p of live.splice(0)) await p.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** What the scenario holds the lock for: a DB browser left open a moment, a backup. */
const HOLD_MS = 3_000;

const start = async () => {
  const s = await spawnSandbox(['sandbox', 'start', '--port', '0', '--state', statePath, '--quiet'], env);
  live.push(s);
  return s;
};
const svc = (args: string[]) => runCli(args, { env });

interface LockHolder {
  /** Resolves once the write lock is held. */
  locked: Promise<void>;
  /** Commits (ending the hold) and resolves when the process has ended. */
  release(): Promise<void>;
  stop(signal: NodeJS.Signals): Promise<unknown>;
}

/** A second process holding the database's write lock (BEGIN IMMEDIATE) until release(). */
function holdWriteLock(path: string): LockHolder {
  const script = `
    const Database = require('libsql');
    const db = new Database(process.argv[1]);
    db.exec('PRAGMA busy_timeout = 10000');
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`;
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['-e', script, path], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => d.includes('locked') && resolve());
    void exited.then((code) => reject(new Error(`the lock holder exited ${code}: ${err}`)));
  });
  const holder: LockHolder = {
    locked,
    async release() {
      child.stdin.write('release\n');
      expect(await exited, err).toBe(0);
    },
    async stop(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  live.push(holder);
  return holder;
}

/** Resolves once the sandbox's stderr matches (its log of errors shows even with --quiet). */
async function logShows(s: SpawnedSandbox, re: RegExp): Promise<void> {
  while (!re.test(s.stderr())) {
    if (s.child.exitCode !== null) throw new Error(`the sandbox exited: ${s.stderr()}`);
    await new Promise((resolve) => {
      s.child.stderr!.once('data', resolve);
      s.child.once('exit', resolve);
    });
  }
}

const usdg = async () => {
  const r = await svc(['--json', 'balance']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Array<{ asset: string; amount: string }>).find((b) => b.asset === 'USDG')!.amount;
};

describe('another program holding the write lock for a few seconds', () => {
  it('loses no acknowledged write: fund and send during and after the hold, then a restart finds them all', async () => {
    let sandbox = await start();
    expect(await usdg()).toBe('1000.00');

    const lock = holdWriteLock(statePath);
    await lock.locked;
    const held = sleep(HOLD_MS);
    // A read counts the key's use: the next flush of those counts meets the lock.
    expect(await usdg()).toBe('1000.00');
    await logShows(sandbox, /error: .*locked/);
    const fundDuringHold = svc(['sandbox', 'fund', '@alice', '5']); // waits for the lock, inside the sandbox
    await held;
    await lock.release();
    const funded = await fundDuringHold;
    expect(funded.code, funded.stderr).toBe(0);

    expect((await svc(['sandbox', 'fund', '@alice', '2'])).code).toBe(0);
    const sent = await svc(['--json', 'transfer', 'send', '@acme', '1.5']);
    expect(sent.code, sent.stderr).toBe(0);
    const transferId = (JSON.parse(sent.stdout) as { transfer_id: string }).transfer_id;
    expect(await usdg()).toBe('1005.50');

    expect(await sandbox.stop('SIGTERM')).toBe(0);
    expect(sandbox.stderr()).toContain(`stopping: every change is already saved in ${statePath}`);

    sandbox = await start();
    expect(sandbox.stderr()).toMatch(/state restored/);
    const got = await svc(['--json', 'transfer', 'get', transferId]);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ transfer_id: transferId, to: '@acme' });
    expect(await usdg()).toBe('1005.50');
    expect(await sandbox.stop('SIGTERM')).toBe(0);
  }, 60_000);

  it('a stop while the lock is still held says what could not be saved (exit 1), never "every change is already saved"', async () => {
    const sandbox = await start();
    expect((await svc(['sandbox', 'fund', '@alice', '3'])).code).toBe(0);
    const lock = holdWriteLock(statePath);
    await lock.locked;
    expect(await usdg()).toBe('1003.00'); // a read: its key-use count is still to be written
    expect(await sandbox.stop('SIGTERM')).toBe(1); // after the last flush waited its busy timeout
    expect(sandbox.stderr()).not.toContain('every change is already saved');
    expect(sandbox.stderr()).toMatch(/error: stopped, but not everything could be saved in .*key-use statistics.*locked.* \(state_not_saved\)/);
    await lock.release();

    // What was acknowledged before the hold is there.
    const again = await start();
    expect(await usdg()).toBe('1003.00');
    expect(await again.stop('SIGTERM')).toBe(0);
  }, 60_000);
});
