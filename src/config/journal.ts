// An append-only record in the config directory, one JSON object per line (0600 in a 0700
// folder): what `transfer batch` and `transfer send` have had accepted, so a rerun never pays
// twice even after the service has forgotten an idempotency key. Each entry is written straight
// to the file the moment it is known (it survives a kill of the process); a line cut short by a
// kill mid-write is the one entry that did not make it, and is skipped when read. Entries hold
// ids and keys, never an amount or a memo.
//
// Pruning rewrites the file (a new one renamed over it) while other runs may be appending to it.
// No entry of theirs is lost: one pruner at a time (a lock file; a run that finds it taken leaves
// the pruning to the next), the pruner copies over what was appended to the old file until its
// rename, and an appender that finds the file replaced after its write writes the entry again
// to the new one (a duplicate line is harmless: the latest entry of a key wins).
import { closeSync, existsSync, fstatSync, lstatSync, openSync, readFileSync, readSync, renameSync, rmSync, writeSync, constants } from 'node:fs';
import { join } from 'node:path';
import { configDir, ensurePrivateDir } from './paths.js';
import { checkPrivatePath } from './safe-path.js';
import { processAlive } from './pid.js';

export interface JournalFile<T> {
  readonly path: string;
  /** The entries on file when it was opened, oldest first (unreadable lines skipped, `keep` applied). */
  readonly entries: readonly T[];
  /** Appends one entry, written through at once. */
  append(entry: T): void;
  close(): void;
}

export interface JournalOptions<T> {
  /** An entry as read back, or undefined to skip a line that is not one. */
  parse: (value: unknown) => T | undefined;
  /**
   * Entries to keep when the file is opened; the others are never returned, and are dropped from
   * the file (pruning) when one was read, or when `stale` finds one.
   */
  keep?: (entry: T) => boolean;
  /** With `containing`: whether the file holds an entry `keep` drops (a cheap test of its bytes, without parsing every line). */
  stale?: (data: Buffer) => boolean;
  /**
   * Only lines holding one of these texts become `entries`: a large journal read for one key
   * parses a handful of lines, not all of them (pruning still reads every line).
   */
  containing?: readonly string[];
}

const NEWLINE = 0x0a;
const WRITE_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** Opens (without creating) `<config dir>/<folder>/<name>.jsonl`; the file is created at the first append. */
export function openJournalFile<T>(env: NodeJS.ProcessEnv, folder: string, name: string, opts: JournalOptions<T>): JournalFile<T> {
  const dir = join(configDir(env), folder);
  checkPrivatePath(configDir(env), 'config directory');
  ensurePrivateDir(dir);
  const path = join(dir, `${name}.jsonl`);
  checkPrivatePath(path, 'config file');
  const data = existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
  // Searched as bytes: decoding a file of hundreds of thousands of lines costs more than the search.
  let entries = opts.containing ? parseLinesHolding(data, opts.containing, opts.parse) : parseLines(data.toString('utf8'), opts.parse);
  let torn = data.length > 0 && data[data.length - 1] !== NEWLINE;
  if (opts.keep) {
    const kept = entries.filter(opts.keep);
    if (kept.length < entries.length || opts.stale?.(data)) {
      const pruned = prune(path, opts.parse, opts.keep);
      // Not pruned (another run is at it): the dropped entries are still ignored here.
      const wanted = opts.containing;
      entries = pruned ? (wanted ? pruned.filter((e) => wanted.some((w) => JSON.stringify(e).includes(w))) : pruned) : kept;
      if (pruned) torn = false;
    } else {
      entries = kept;
    }
  }
  // Opened at the first entry: a run that records nothing leaves no file behind.
  let fd: number | undefined;
  return {
    path,
    entries,
    append(entry) {
      const line = `${JSON.stringify(entry)}\n`;
      for (let tries = 0; ; tries++) {
        if (fd === undefined) {
          fd = openSync(path, WRITE_FLAGS, 0o600);
          if (torn) writeSync(fd, '\n'); // so the next entry starts a line of its own
          torn = false;
        }
        writeSync(fd, line);
        if (!replaced(fd, path) || tries === 3) return;
        // Another run pruned the file (or it was removed) since it was opened: write to the new one.
        closeSync(fd);
        fd = undefined;
      }
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** The entries of the lines that hold one of `texts`, in file order. */
function parseLinesHolding<T>(data: Buffer, texts: readonly string[], parse: (value: unknown) => T | undefined): T[] {
  const starts = new Set<number>();
  for (const text of texts) {
    const needle = Buffer.from(text);
    for (let at = data.indexOf(needle); at >= 0; at = data.indexOf(needle, at + needle.length)) {
      starts.add(at === 0 ? 0 : data.lastIndexOf(NEWLINE, at - 1) + 1);
    }
  }
  const lines = [...starts].sort((a, b) => a - b).map((start) => {
    const end = data.indexOf(NEWLINE, start);
    return data.toString('utf8', start, end < 0 ? data.length : end);
  });
  return parseLines(lines.join('\n'), parse);
}

function parseLines<T>(text: string, parse: (value: unknown) => T | undefined): T[] {
  const entries: T[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue; // the torn last line
    }
    const entry = parse(value);
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}

/** Whether `path` is no longer the file `fd` writes to. */
function replaced(fd: number, path: string): boolean {
  try {
    return lstatSync(path).ino !== fstatSync(fd).ino;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}

/**
 * Rewrites the file with the entries `keep` accepts: a new file beside it (exclusively, 0600)
 * renamed over it, under a lock; returns what it kept, or undefined when another run holds the lock.
 */
function prune<T>(path: string, parse: (value: unknown) => T | undefined, keep: (entry: T) => boolean): T[] | undefined {
  const lock = takeLock(`${path}.lock`);
  if (lock === undefined) return undefined;
  try {
    const old = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const { text, end } = readFrom(old, 0);
      const kept = parseLines(text, parse).filter(keep);
      const temp = `${path}.${process.pid}.tmp`;
      rmSync(temp, { force: true });
      const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        writeSync(fd, kept.map((e) => `${JSON.stringify(e)}\n`).join(''));
      } finally {
        closeSync(fd);
      }
      renameSync(temp, path);
      // What other runs appended to the old file between our read and the rename, copied over.
      const late = parseLines(readFrom(old, end).text, parse);
      if (late.length) {
        const fd2 = openSync(path, WRITE_FLAGS, 0o600);
        try {
          writeSync(fd2, late.map((e) => `${JSON.stringify(e)}\n`).join(''));
        } finally {
          closeSync(fd2);
        }
      }
      return [...kept, ...late];
    } finally {
      closeSync(old);
    }
  } finally {
    closeSync(lock);
    rmSync(`${path}.lock`, { force: true });
  }
}

/** The text of `fd` from byte `start` to its end (complete lines only), and where they end. */
function readFrom(fd: number, start: number): { text: string; end: number } {
  const size = fstatSync(fd).size;
  if (size <= start) return { text: '', end: start };
  const buf = Buffer.alloc(size - start);
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, start + got);
    if (n === 0) break;
    got += n;
  }
  const last = buf.lastIndexOf(0x0a, got - 1);
  // A line still being written (or torn by a kill) is left where it is.
  const whole = last < 0 ? 0 : last + 1;
  return { text: buf.subarray(0, whole).toString('utf8'), end: start + whole };
}

/** The prune lock, or undefined when a live run holds it (a lock left by a dead run is taken over). */
function takeLock(lockPath: string): number | undefined {
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(lockPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      writeSync(fd, String(process.pid));
      return fd;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (holderAlive(lockPath)) return undefined;
      rmSync(lockPath, { force: true });
    }
  }
  return undefined;
}

function holderAlive(lockPath: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(lockPath, 'utf8'));
  } catch {
    return false;
  }
  // Being written this instant (no pid yet) counts as alive.
  if (!Number.isInteger(pid) || pid <= 0) return true;
  return processAlive(pid);
}
