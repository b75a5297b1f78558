// An append-only record in the config directory, one JSON object per line (0600 in a 0700
// folder): what `transfer batch` and `transfer send` have had accepted, so a rerun never pays
// twice even after the service has forgotten an idempotency key. Each entry is written straight
// to the file the moment it is known (it survives a kill of the process); a line cut short by a
// kill mid-write is the one entry that did not make it, and is skipped when read. Entries hold
// ids and keys, never an amount or a memo.
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeSync, constants } from 'node:fs';
import { join } from 'node:path';
import { configDir, ensurePrivateDir } from './paths.js';
import { checkPrivatePath } from './safe-path.js';

export interface JournalFile<T> {
  readonly path: string;
  /** The entries on file when it was opened, oldest first (unreadable lines skipped). */
  readonly entries: readonly T[];
  /** Appends one entry, written through at once. */
  append(entry: T): void;
  close(): void;
}

export interface JournalOptions<T> {
  /** An entry as read back, or undefined to skip a line that is not one. */
  parse: (value: unknown) => T | undefined;
  /** Entries to keep when the file is opened; the others are dropped from it (pruning). */
  keep?: (entry: T) => boolean;
}

/** Opens (without creating) `<config dir>/<folder>/<name>.jsonl`; the file is created at the first append. */
export function openJournalFile<T>(env: NodeJS.ProcessEnv, folder: string, name: string, opts: JournalOptions<T>): JournalFile<T> {
  const dir = join(configDir(env), folder);
  checkPrivatePath(configDir(env), 'config directory');
  ensurePrivateDir(dir);
  const path = join(dir, `${name}.jsonl`);
  checkPrivatePath(path, 'config file');
  const read = existsSync(path) ? readLines(path, opts.parse) : { entries: [], torn: false };
  let entries = read.entries;
  let torn = read.torn;
  if (opts.keep) {
    const kept = entries.filter(opts.keep);
    if (kept.length < entries.length) {
      rewrite(path, kept);
      entries = kept;
      torn = false;
    }
  }
  // Opened at the first entry: a run that records nothing leaves no file behind.
  let fd: number | undefined;
  return {
    path,
    entries,
    append(entry) {
      if (fd === undefined) {
        fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
        if (torn) writeSync(fd, '\n'); // so the next entry starts a line of its own
      }
      writeSync(fd, `${JSON.stringify(entry)}\n`);
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

function readLines<T>(path: string, parse: (value: unknown) => T | undefined): { entries: T[]; torn: boolean } {
  const text = readFileSync(path, 'utf8');
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
  return { entries, torn: text.length > 0 && !text.endsWith('\n') };
}

/** Replaces the file with `entries`: written to a new file beside it (exclusively, 0600), then renamed over it. */
function rewrite<T>(path: string, entries: readonly T[]): void {
  const temp = `${path}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}
