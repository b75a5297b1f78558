// What a batch has done so far, on disk: one JSON line per row outcome, appended (and written
// through) the moment it is known, in the config directory (0600 in 0700). A journal is one batch
// name of one account on one service, whatever file the rows came from: a rerun reads it to send
// exactly the rows not yet accepted, even after a SIGKILL and after the service has forgotten the
// idempotency keys (it keeps them for 24 hours). --new-batch starts a new instance of the batch
// (a line `{"new_instance": nonce}`): rows are matched within the latest instance only. It holds
// ids, keys, keyed hashes and error codes, never an amount, a memo or a ref.
import { createHash } from 'node:crypto';
import { openJournalFile } from '../../../config/journal.js';
import { CliError } from '../../../errors.js';
import { isContentRowId } from './identity.js';

export interface JournalEntry {
  row: string;
  line: number;
  key: string;
  generation: number;
  /** `tried`: sent, no answer yet (it stays so when the answer is lost or the process is killed). */
  status: 'tried' | 'sent' | 'held' | 'failed';
  /** When this key was first sent (ISO 8601, the tool's clock): the service remembers it 24 hours. */
  tried_at?: string;
  /** The instance the row was sent in; absent for the first (`""`). */
  instance?: string;
  /** A keyed hash of what the row paid (identity.ts): a ref's row that has changed since is told apart. */
  content?: string;
  /** The local key's fingerprint (identity.ts keyIdOf). */
  key_id?: string;
  transfer_id?: string;
  transaction_id?: string;
  error_code?: string;
  /** A refusal for good (4xx): no transfer exists, and the next run tries under a new key. */
  final?: boolean;
}

interface InstanceMark {
  new_instance: string;
}

type Line = JournalEntry | InstanceMark;

export interface Journal {
  readonly path: string;
  /** The instance rows are sent in: `""` until a --new-batch. */
  readonly instance: string;
  /** The latest entry of each row of this instance. */
  readonly last: ReadonlyMap<string, JournalEntry>;
  /** With --new-batch: the latest entries of the instance it replaces (the rows it sends again). */
  readonly previous: ReadonlyMap<string, JournalEntry>;
  /**
   * Sending begins: a new instance is recorded now, even if no row's outcome is (a run stopped at
   * its first row), so that the command run again without --new-batch finishes this instance.
   */
  begin(): void;
  record(entry: Omit<JournalEntry, 'instance' | 'key_id'>): void;
  close(): void;
}

export interface JournalScope {
  baseUrl: string;
  accountId: string;
  batch: string;
}

export interface JournalOptions {
  /** The local key's fingerprint. */
  keyId: string;
  /** --new-batch: the nonce of the new instance, written before its first entry. */
  newInstance?: string;
}

/** Sent or held: a transfer (or a held transaction) exists; the row is never sent again in its instance. */
export const isAccepted = (e: JournalEntry | undefined): e is JournalEntry & { status: 'sent' | 'held' } => e?.status === 'sent' || e?.status === 'held';

function parseLine(v: unknown): Line | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  if (typeof (v as InstanceMark).new_instance === 'string') return v as InstanceMark;
  return typeof (v as JournalEntry).row === 'string' && typeof (v as JournalEntry).key === 'string' ? (v as JournalEntry) : undefined;
}

/** A journal per service, account and batch name (`v2`: journals of file-hash batch ids are never read). */
export function openJournal(env: NodeJS.ProcessEnv, scope: JournalScope, opts: JournalOptions): Journal {
  const name = createHash('sha256').update(`batch-v2\u0000${scope.baseUrl}\u0000${scope.accountId}\u0000${scope.batch}`).digest('hex').slice(0, 32);
  const file = openJournalFile<Line>(env, 'batches', name, { parse: parseLine });
  let current = '';
  const byInstance = new Map<string, Map<string, JournalEntry>>();
  for (const e of file.entries) {
    if ('new_instance' in e) {
      current = e.new_instance;
      continue;
    }
    const inst = e.instance ?? '';
    let rows = byInstance.get(inst);
    if (!rows) byInstance.set(inst, (rows = new Map()));
    rows.set(e.row, e);
  }
  const latest = byInstance.get(current) ?? new Map<string, JournalEntry>();
  if (opts.newInstance === undefined) refuseAnotherKey(latest, opts.keyId, scope.batch);
  const instance = opts.newInstance ?? current;
  const last = opts.newInstance === undefined ? latest : new Map<string, JournalEntry>();
  let marked = opts.newInstance === undefined;
  const begin = () => {
    if (marked) return;
    file.append({ new_instance: instance });
    marked = true;
  };
  return {
    path: file.path,
    instance,
    last,
    previous: opts.newInstance === undefined ? new Map() : latest,
    begin,
    record(entry) {
      begin();
      const full: JournalEntry = { ...entry, ...(instance ? { instance } : {}), key_id: opts.keyId };
      last.set(full.row, full);
      file.append(full);
    },
    close: () => file.close(),
  };
}

/**
 * Rows without a ref are matched by a hash under the local key: under another key (the file
 * replaced or lost), they would all look new and be paid again. Refused instead.
 */
function refuseAnotherKey(rows: ReadonlyMap<string, JournalEntry>, keyId: string, batch: string): void {
  for (const e of rows.values()) {
    if (isContentRowId(e.row) && e.key_id !== undefined && e.key_id !== keyId) {
      throw new CliError('usage', 'batch_key_changed', `batch "${batch}" holds rows without a ref recorded under another local key (batches/.key in the config directory was replaced): they cannot be matched to this file, and would be paid again; nothing was sent`, {
        hint: 'restore batches/.key from a backup of the config directory, or add --new-batch to send every row again on purpose',
      });
    }
  }
}
