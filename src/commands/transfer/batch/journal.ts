// What a batch has done so far, on disk: one JSON line per row outcome, appended (and written
// through) the moment it is known, in the config directory (0600 in 0700). A rerun of the same
// batch reads it to send exactly the rows not yet accepted, even after a SIGKILL and after the
// service has forgotten the idempotency keys (they are kept for 24 hours). It holds ids, keys
// and error codes, never an amount or a memo.
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { configDir, ensurePrivateDir } from '../../../config/paths.js';
import { checkPrivatePath } from '../../../config/safe-path.js';

export interface JournalEntry {
  row: string;
  line: number;
  key: string;
  generation: number;
  status: 'sent' | 'held' | 'failed';
  transfer_id?: string;
  transaction_id?: string;
  error_code?: string;
  /** A refusal for good (4xx): no transfer exists, and the next run tries under a new key. */
  final?: boolean;
}

export interface Journal {
  readonly path: string;
  /** The latest entry of each row. */
  readonly last: ReadonlyMap<string, JournalEntry>;
  record(entry: JournalEntry): void;
  close(): void;
}

/** A journal per service, account and batch id: the same file elsewhere is another batch. */
export function openJournal(env: NodeJS.ProcessEnv, scope: { baseUrl: string; accountId: string; batchId: string }): Journal {
  const dir = join(configDir(env), 'batches');
  checkPrivatePath(configDir(env), 'config directory');
  ensurePrivateDir(dir);
  const name = createHash('sha256').update(`${scope.baseUrl}\u0000${scope.accountId}\u0000${scope.batchId}`).digest('hex').slice(0, 32);
  const path = join(dir, `${name}.jsonl`);
  checkPrivatePath(path, 'config file');
  const last = new Map<string, JournalEntry>();
  let torn = false;
  if (existsSync(path)) {
    const text = readFileSync(path, 'utf8');
    torn = text.length > 0 && !text.endsWith('\n');
    for (const line of text.split('\n')) {
      // A line cut short by a kill mid-write is the one entry that did not make it.
      try {
        const e = JSON.parse(line) as JournalEntry;
        if (typeof e.row === 'string') last.set(e.row, e);
      } catch {
        /* the torn last line */
      }
    }
  }
  // Opened at the first entry: a batch refused before sending leaves no file behind.
  let fd: number | undefined;
  return {
    path,
    last,
    record(entry) {
      last.set(entry.row, entry);
      if (fd === undefined) {
        fd = openSync(path, 'a', 0o600);
        if (torn) writeSync(fd, '\n'); // so the next entry starts a line of its own
      }
      // One write per entry, straight to the file: it survives a kill of this process.
      writeSync(fd, `${JSON.stringify(entry)}\n`);
    },
    close() {
      if (fd !== undefined) closeSync(fd);
    },
  };
}
