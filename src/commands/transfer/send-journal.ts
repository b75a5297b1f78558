// What `transfer send` has sent, on disk: per service and account, one JSON line per event of a
// key (tried, refused for good, accepted), appended the moment it is known, kept 90 days. The
// service remembers an Idempotency-Key for 24 hours only; with this a rerun under a key svc has
// seen accepted is answered from the earlier transfer and never sent again, however late it
// comes. A line holds ids, keys, a status, a time and the request's fingerprint (an HMAC under
// a random local key: it tells the same request from another, and reveals neither amount nor
// memo); never an amount or a memo. docs/idempotency.md.
import { createHash, createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openJournalFile } from '../../config/journal.js';
import { configDir } from '../../config/paths.js';
import { localKey } from '../../config/local-key.js';
import { CliError } from '../../errors.js';
import { SERVICE_KEY_MEMORY_MS } from '../../domain/idempotency.js';
import type { TransferRequest } from './request.js';

const HOUR_MS = 3_600_000;
/** How long a key is remembered here. */
export const KEEP_MS = 90 * 24 * HOUR_MS;

export const SENDS_FOLDER = 'sends';

export interface SendEntry {
  /** The command's idempotency key (given or generated). */
  key: string;
  /** When this was recorded (ISO 8601, the tool's clock). */
  at: string;
  /**
   * `tried`: about to be sent, outcome not known yet (it stays so when the answer is lost);
   * `not_sent`: refused for good, or never left this machine: nothing was made;
   * `sent`: a transfer was made; `held`: a transaction held for approval was made.
   */
  status: 'tried' | 'not_sent' | 'sent' | 'held';
  /** HMAC-SHA256 of the request under the local key. */
  request: string;
  /** The key the request went under when it is not `key` (a standard transfer offered after a 422). */
  sent_key?: string;
  transfer_id?: string;
  transaction_id?: string;
  /** A held transaction's approval deadline, as the service answered it. */
  expires_at?: string;
  /** For `tried` again after a try whose outcome is unknown: when that first try was made. */
  first_tried_at?: string;
}

export interface SendJournal {
  readonly path: string;
  /** The latest entry of the key the journal was opened for, if it is remembered (another key: an error). */
  find(key: string): SendEntry | undefined;
  /** The request's fingerprint: equal for the same request, and nothing else learnt from it. */
  fingerprint(req: TransferRequest): string;
  /** Appends an entry, timed by the tool's clock. */
  record(entry: Omit<SendEntry, 'at'>): void;
}

/** The journal file's name: one per service (base URL) and account. */
function journalName(scope: { baseUrl: string; accountId: string }): string {
  return createHash('sha256').update(`${scope.baseUrl}\u0000${scope.accountId}`).digest('hex').slice(0, 32);
}

/** An entry of this key: a command's under it, or the standard transfer sent under it after a 422. */
function isUnder(e: SendEntry, key: string): boolean {
  return e.key === key || e.sent_key === key;
}

/** Whether an entry is still remembered at `now` (90 days). */
function remembered(e: SendEntry, now: number): boolean {
  return now - Date.parse(e.at) < KEEP_MS;
}

/** HMAC of the request under the local key, field by field in a fixed order: the same request always gives the same text. */
function fingerprintOf(secret: Buffer, req: TransferRequest): string {
  const text = JSON.stringify([req.to, req.amount, req.asset, req.confidential, req.memo ?? null]);
  return createHmac('sha256', secret).update(text).digest('hex');
}

/**
 * The journal of one service (base URL) and account, read for one idempotency key: only the lines
 * naming it are parsed, so a send costs the same with a few entries or hundreds of thousands.
 * Entries older than 90 days are dropped.
 */
export function openSendJournal(env: NodeJS.ProcessEnv, scope: { baseUrl: string; accountId: string }, now: () => number, key: string): SendJournal {
  const file = openJournalFile<SendEntry>(env, SENDS_FOLDER, journalName(scope), {
    parse: parseEntry,
    keep: (e) => remembered(e, now()),
    // As written by JSON.stringify: the key, or a sent_key, equal to it.
    containing: [JSON.stringify(key)],
    stale: (data) => holdsTimeBefore(data, new Date(now() - KEEP_MS).toISOString(), new Date(now()).toISOString()),
  });
  const secret = localKey(env, SENDS_FOLDER, 'fingerprint.key', { create: true })!;
  let latest = file.entries.filter((e) => isUnder(e, key)).at(-1);
  return {
    path: file.path,
    find(asked) {
      // Any other key was not read: "not remembered" would send it again.
      if (asked !== key) throw new Error(`send journal opened for key ${key} asked for ${asked}`);
      return latest;
    },
    fingerprint: (req) => fingerprintOf(secret, req),
    record(entry) {
      const full: SendEntry = { ...entry, at: new Date(now()).toISOString() };
      file.append(full);
      if (isUnder(full, key)) latest = full;
    },
  };
}

const AT = Buffer.from('"at":"');

/**
 * Whether an entry is older than `cutoff`. Entries are appended as time goes, so the first is the
 * oldest and is the one looked at; only when it is later than `now` (the clock was set back
 * since) is every line looked at. Times as toISOString() writes them (one width, UTC) compare
 * as bytes: the file is never decoded or parsed for this.
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

/**
 * What the journal knows of `key`, read only: nothing is created (no journal file, no local key),
 * nothing pruned. For `--dry-run`, which must say what a real run would do with the key.
 */
export function peekSendJournal(env: NodeJS.ProcessEnv, scope: { baseUrl: string; accountId: string }, now: number, key: string): { entry: SendEntry | undefined; fingerprint(req: TransferRequest): string } | undefined {
  const secret = localKey(env, SENDS_FOLDER, 'fingerprint.key', { create: false });
  // No key: no send was ever journaled here (the key is made before the first entry).
  if (!secret || !existsSync(join(configDir(env), SENDS_FOLDER, `${journalName(scope)}.jsonl`))) return undefined;
  const file = openJournalFile<SendEntry>(env, SENDS_FOLDER, journalName(scope), { parse: parseEntry, containing: [JSON.stringify(key)] });
  file.close();
  // As openSendJournal remembers: the latest entry under the key, within 90 days.
  const entry = file.entries.filter((e) => isUnder(e, key) && remembered(e, now)).at(-1);
  return { entry, fingerprint: (req) => fingerprintOf(secret, req) };
}

const STATUSES: ReadonlySet<string> = new Set(['tried', 'not_sent', 'sent', 'held']);

const OPTIONAL_TEXT = ['sent_key', 'transfer_id', 'transaction_id', 'expires_at', 'first_tried_at'] as const;

/** A line as written by record(), or undefined (a line cut short by a kill, or not ours). */
function parseEntry(v: unknown): SendEntry | undefined {
  const e = v as Partial<SendEntry> | null;
  if (!e || typeof e.key !== 'string' || typeof e.at !== 'string' || Number.isNaN(Date.parse(e.at))) return undefined;
  if (typeof e.status !== 'string' || !STATUSES.has(e.status) || typeof e.request !== 'string') return undefined;
  if (OPTIONAL_TEXT.some((k) => e[k] !== undefined && typeof e[k] !== 'string')) return undefined;
  if ((e.status === 'sent' && !e.transfer_id) || (e.status === 'held' && !e.transaction_id)) return undefined;
  return e as SendEntry;
}

/** An earlier send under this key that the service accepted: shown instead of sending again. */
export type Earlier = SendEntry & { status: 'sent' | 'held' };

/**
 * What to do with a key the journal may know: undefined to send (unknown key, refused before,
 * or tried within the service's memory); the earlier send to show; or an error, sending nothing,
 * when the key was used for another request, or tried too long ago to learn how it ended.
 */
export function priorUse(entry: SendEntry | undefined, fingerprint: string, now: number): Earlier | undefined {
  if (!entry || entry.status === 'not_sent') return undefined;
  const what = entry.transfer_id ? `transfer ${entry.transfer_id}` : entry.transaction_id ? `held transaction ${entry.transaction_id}` : 'a transfer';
  const ids = { idempotency_key: entry.key, ...(entry.transfer_id ? { transfer_id: entry.transfer_id } : {}), ...(entry.transaction_id ? { transaction_id: entry.transaction_id } : {}) };
  if (entry.request !== fingerprint) {
    throw new CliError('conflict', 'idempotency_key_reused', `idempotency key ${entry.key} was used on ${entry.at} for another payment (${what}); nothing was sent`, {
      hint: entry.transfer_id
        ? `a new payment needs a new --idempotency-key; the earlier one: \`svc transfer get ${entry.transfer_id}\``
        : 'a new payment needs a new --idempotency-key',
      details: ids,
    });
  }
  if (entry.status === 'sent' || entry.status === 'held') return entry as Earlier;
  // Tried, and how it ended is not known: the service still answers for it within its memory.
  const tried = entry.first_tried_at ?? entry.at;
  if (now - Date.parse(tried) < SERVICE_KEY_MEMORY_MS) return undefined;
  throw new CliError('conflict', 'idempotency_outcome_unknown', `this transfer was tried under idempotency key ${entry.key} on ${tried}, how it ended is not known, and the service forgets keys after 24 hours: not sent again, as it may have been made`, {
    hint: `look for it with \`svc transfer ls --since ${tried}\`; if it is not there, send it under a new --idempotency-key`,
    details: ids,
  });
}
