// What a batch has done so far, on disk: one JSON line per row outcome, appended (and written
// through) the moment it is known, in the config directory (0600 in 0700). A rerun of the same
// batch reads it to send exactly the rows not yet accepted, even after a SIGKILL and after the
// service has forgotten the idempotency keys (they are kept for 24 hours). It holds ids, keys
// and error codes, never an amount or a memo.
import { createHash } from 'node:crypto';
import { openJournalFile } from '../../../config/journal.js';

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
  const name = createHash('sha256').update(`${scope.baseUrl}\u0000${scope.accountId}\u0000${scope.batchId}`).digest('hex').slice(0, 32);
  const file = openJournalFile<JournalEntry>(env, 'batches', name, {
    parse: (v) => (typeof (v as JournalEntry | null)?.row === 'string' ? (v as JournalEntry) : undefined),
  });
  const last = new Map(file.entries.map((e) => [e.row, e]));
  return {
    path: file.path,
    last,
    record(entry) {
      last.set(entry.row, entry);
      file.append(entry);
    },
    close: () => file.close(),
  };
}
