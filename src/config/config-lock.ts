// One writer of config.json at a time, as git does with config.lock: a lock file beside it,
// created with O_CREAT|O_EXCL (mode 0600) and holding "<pid> <host>". A write reads the file,
// changes it and replaces it while holding the lock, so two commands changing different
// profiles at once both land. The locked part is synchronous: no signal handler or timer runs
// inside it, and `finally` releases the lock on every way out but a hard kill. A lock left by a
// process that died (its pid, on this host, is not alive) is taken over, through one routine
// (takeOver) that every lock of svc shares: the journals', a batch's, the sandbox database's.
import { closeSync, constants, openSync, readSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import { CliError, UsageError } from '../errors.js';
import { processAlive } from './pid.js';

/** How long a write waits for the lock before giving up. */
export const LOCK_WAIT_MS = 5_000;
/** The pause between tries (a short real timer, or a virtual one in tests). */
const RETRY_MS = 15;

const HOST = hostname();
const OWN = `${process.pid} ${HOST}\n`;

/** Creates `path` exclusively with our pid in it; false when it exists. */
function create(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, OWN);
  } catch (err) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw err;
  }
  closeSync(fd);
  return true;
}

/** The lock file's text; undefined when it is gone. A symbolic link is refused (never followed). */
function readLock(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new UsageError(`the lock file ${path} is a symbolic link; refusing to use it`, `remove it (no svc writes one)`, 'unsafe_config');
    throw err;
  }
  try {
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

interface Holder {
  pid: number;
  host: string;
}

/** `<pid> <host>`; a bare `<pid>` is a sandbox database lock written before svc recorded the host: this host's. */
function holderOf(text: string | undefined): Holder | undefined {
  const m = /^(\d+)(?: (\S+))?\n$/.exec(text ?? '');
  return m ? { pid: Number(m[1]), host: m[2] ?? HOST } : undefined;
}


/**
 * A lock whose holder is known to be gone: its pid on this host is not alive. A lock being
 * written (empty for an instant), from another host, or unreadable is never stale.
 */
function isStale(text: string | undefined): boolean {
  const holder = holderOf(text);
  return holder !== undefined && holder.host === HOST && holder.pid !== process.pid && !processAlive(holder.pid);
}

/**
 * Takes over a stale lock. Only one process may do so at a time (it holds `<lock>.break`), so
 * none can replace a lock another has just taken; the stale lock is replaced by ours in one
 * rename, so there is no instant without a lock for a third process to slip into.
 */
function takeOver(path: string, staleText: string): boolean {
  const breaker = `${path}.break`;
  if (!create(breaker)) {
    // A breaker left by a process killed inside these few calls: remove it, try again later.
    const text = readLock(breaker);
    if (isStale(text)) rmSync(breaker, { force: true });
    return false;
  }
  try {
    if (readLock(path) !== staleText) return false; // released or taken over meanwhile
    const mine = `${path}.${process.pid}`;
    rmSync(mine, { force: true });
    if (!create(mine)) return false;
    try {
      renameSync(mine, path);
    } catch (err) {
      rmSync(mine, { force: true });
      throw err;
    }
    return true;
  } finally {
    rmSync(breaker, { force: true });
  }
}

/** One try: true when this process now holds the lock. */
function acquire(path: string): boolean {
  if (create(path)) return true;
  const text = readLock(path);
  return text !== undefined && isStale(text) && takeOver(path, text);
}

/** Removes the lock if it is still ours (it is, unless someone wrongly took it over). */
function release(path: string): void {
  try {
    if (readLock(path) === OWN) unlinkSync(path);
  } catch {
    /* nothing more can be done; a later writer takes a dead pid's lock over */
  }
}

/** ` (process 123)`, or ` (process 123 on host)`: who holds a lock, for a message; empty when unknown. */
export function describeLockHolder(path: string): string {
  const holder = holderOf(readLock(path));
  return holder ? ` (process ${holder.pid}${holder.host === HOST ? '' : ` on ${holder.host}`})` : '';
}

function lockedError(path: string, waitedMs: number): CliError {
  const holder = holderOf(readLock(path));
  const by = holder ? ` by process ${holder.pid}${holder.host === HOST ? '' : ` on ${holder.host}`}` : '';
  return new CliError('conflict', 'config_locked', `could not lock the config: ${path} is held${by} (waited ${waitedMs / 1000}s); nothing was changed`, {
    hint: `try again; if no svc is running, remove ${path}`,
  });
}

/**
 * Runs `change` (synchronous, or waiting only on the OS keyring) holding the lock at `path`, waiting up to LOCK_WAIT_MS (on
 * `clock`) for it; config_locked (exit 5) if it cannot be had.
 */
export async function withLock<T>(path: string, clock: Clock, change: () => T | Promise<T>, waitMs = LOCK_WAIT_MS): Promise<T> {
  const deadline = clock.now() + waitMs;
  for (;;) {
    // Taking the lock, the change and the release happen in one turn of the event loop, unless the
    // change waits on the OS keyring (a keyring profile's secrets: at most its timeout).
    if (acquire(path)) {
      try {
        return await change();
      } finally {
        release(path);
      }
    }
    if (clock.now() >= deadline) throw lockedError(path, waitMs);
    await clock.sleep(RETRY_MS + Math.floor(Math.random() * RETRY_MS));
  }
}

/** Takes the lock at `path` if it is free now (or stale): its release, or undefined when another process holds it. */
export function tryLock(path: string): (() => void) | undefined {
  return acquire(path) ? () => release(path) : undefined;
}

/** Runs `change` holding the lock if it is free now (for a cache: never waits); false if not. */
export function withLockIfFree(path: string, change: () => void): boolean {
  if (!acquire(path)) return false;
  try {
    change();
  } finally {
    release(path);
  }
  return true;
}
