// An append-only record in the config directory, one JSON object per line (0600 in a 0700
// folder): the file under the ledger (core/ledger/), so a rerun never pays twice even after the
// service has forgotten an idempotency key. Each entry is written straight
// to the file the moment it is known (it survives a kill of the process); a line cut short by a
// kill mid-write is the one entry that did not make it, and is skipped when read. Entries hold
// ids and keys, never an amount or a memo.
//
// Pruning rewrites the file (a new one renamed over it) while other runs may be appending to it.
// No entry of theirs is lost: one pruner at a time (a lock file; a run that finds it taken leaves
// the pruning to the next), the pruner copies over what was appended to the old file until its
// rename, and an appender that finds the file replaced after its write writes the entry again
// to the new one (a duplicate line is harmless: the ledger's merge rule reads it as the same event).
import { closeSync, existsSync, fstatSync, lstatSync, openSync, readFileSync, readSync, renameSync, rmSync, writeSync, constants } from 'node:fs';
import { join } from 'node:path';
import { configDir, ensurePrivateDir } from './paths.js';
import { checkPrivatePath } from './safe-path.js';
import { tryLock } from './config-lock.js';

export interface JournalFile<T> {
  readonly path: string;
  /** The entries on file when it was opened, oldest first (unreadable lines skipped). */
  readonly entries: readonly T[];
  /** Appends one entry, written through at once. */
  append(entry: T): void;
  /**
   * Whether the file may hold an entry timed before `cutoff` (ISO 8601, as toISOString writes):
   * a test of the bytes read at open, without parsing them.
   */
  holdsTimeBefore(cutoff: string, now: string): boolean;
  /**
   * Rewrites the file with the entries `keep` accepts (every line of the file, not only those
   * read); nothing when another run is pruning it now.
   */
  prune(keep: (entry: T) => boolean): void;
  close(): void;
}

export interface JournalOptions<T> {
  /** An entry as read back, or undefined to skip a line that is not one. */
  parse: (value: unknown) => T | undefined;
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
  const entries = opts.containing ? parseLinesHolding(data, opts.containing, opts.parse) : parseLines(data.toString('utf8'), opts.parse);
  let torn = data.length > 0 && data[data.length - 1] !== NEWLINE;
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
    holdsTimeBefore: (cutoff, now) => holdsTimeBefore(data, cutoff, now),
    prune(keep) {
      if (existsSync(path)) prune(path, opts.parse, keep);
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

const AT = Buffer.from('"at":"');

/**
 * Whether an entry's `at` is older than `cutoff`. Entries are appended as time goes, so the first
 * is the oldest and is the one looked at; only when it is later than `now` (the clock was set
 * back since) is every line looked at. Times as toISOString() writes them (one width, UTC)
 * compare as bytes.
 */
function holdsTimeBefore(data: Buffer, cutoff: string, now: string): boolean {
  const cut = Buffer.from(cutoff);
  const later = Buffer.from(now);
  for (let at = data.indexOf(AT), first = true; at >= 0; at = data.indexOf(AT, at + AT.length), first = false) {
    const start = at + AT.length;
    const end = data.indexOf(0x22, start); // its closing quote
    if (end < 0) return false;
    if (data.compare(cut, 0, cut.length, start, end) < 0) return true;
    if (first && data.compare(later, 0, later.length, start, end) <= 0) return false;
  }
  return false;
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
 * renamed over it, under a lock (config-lock.ts: a dead holder's lock is taken over through its
 * `.break` step, so two runs never both take it over); nothing when another run holds the lock.
 */
function prune<T>(path: string, parse: (value: unknown) => T | undefined, keep: (entry: T) => boolean): void {
  const release = tryLock(`${path}.lock`);
  if (release === undefined) return;
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
    } finally {
      closeSync(old);
    }
  } finally {
    release();
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
