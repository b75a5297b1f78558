// One sandbox per database file, whatever the path it is reached by: the lock (`<file>.lock`,
// config-lock.ts) is taken beside the real file, so a second sandbox through a symbolic link is
// refused; and a stale lock (its process gone) is taken over by exactly one of two sandboxes
// that find it at once, through the shared takeover's `.break` step.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSandbox, type SandboxStartError } from '../../src/sandbox/index.js';
import { closeDatabase, openDatabase, type Db } from '../../src/sandbox/store/db.js';
import { startSandbox } from './helpers.js';

// Every removal or rename of a file can be watched: `hook.before` runs just before it.
const hook = vi.hoisted(() => ({ before: undefined as ((op: string, path: string) => void) | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const watched = <F extends (...args: never[]) => unknown>(op: string, f: F) =>
    ((...args: Parameters<F>) => {
      hook.before?.(op, String(args[0]));
      return f(...args);
    }) as F;
  const mocked = { ...fs, unlinkSync: watched('unlinkSync', fs.unlinkSync), rmSync: watched('rmSync', fs.rmSync), renameSync: watched('renameSync', fs.renameSync) };
  return { ...mocked, default: mocked };
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sbx-lockfile-'));
});
afterEach(() => {
  hook.before = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has ended (not reused this soon). */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('the state file lock', () => {
  it('a second sandbox on a symbolic link to the database in use is refused', async () => {
    const real = join(dir, 'state.db');
    const first = await startSandbox({ ephemeral: false, statePath: real });
    try {
      const link = join(dir, 'link.db');
      symlinkSync(real, link);
      copyFileSync(`${real}.key`, `${link}.key`); // its key beside it too: only the lock may stop it
      const err = (await createSandbox({ port: 0, statePath: link }).catch((e: unknown) => e)) as SandboxStartError;
      expect(err).toMatchObject({ code: 'state_locked', message: `the sandbox database ${link} is in use by another sandbox (process ${process.pid})` });
      expect((await first.as('@alice').get('/v1/accounts/me')).status).toBe(200); // the first goes on
    } finally {
      await first.close();
    }
  });

  it('two sandboxes taking over a stale lock at once: exactly one wins', () => {
    const path = join(dir, 'state.db');
    const lockPath = `${path}.lock`;
    writeFileSync(lockPath, `${deadPid()} ${hostname()}\n`, { mode: 0o600 }); // as a SIGKILLed sandbox leaves it
    const results: Array<Db | unknown> = [];
    const open = () => {
      try {
        results.push(openDatabase(path));
      } catch (err) {
        results.push(err);
      }
    };
    // The worst moment: the first has judged the lock stale and is about to replace it, when the
    // second, which judged it stale too, makes its own try.
    hook.before = (_op, target) => {
      if (!target.startsWith(lockPath)) return;
      hook.before = undefined;
      open();
    };
    open();
    const dbs = results.filter((r): r is Db => !(r instanceof Error));
    try {
      expect(dbs).toHaveLength(1);
      expect(results.filter((r) => r instanceof Error)).toEqual([expect.objectContaining({ code: 'state_locked' })]);
      expect(readdirSync(dir).filter((f) => f.includes('.lock')).sort()).toEqual(['state.db.lock']); // no `.break` or temporary lock left
    } finally {
      for (const db of dbs) closeDatabase(db);
    }
    expect(existsSync(lockPath)).toBe(false);
  });
});
