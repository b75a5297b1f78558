// What svc recorded before the ledger: three journals with three vocabularies (sends/, batches/,
// approvals/). They are read, never written, each line put into the ledger's words as it is
// read, so a key, a row or a decision recorded by an older svc is still known: upgrading never
// makes a rerun pay again. Their local keys (the request fingerprints' and the rows') stay the
// ledger's (local-keys.ts).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openJournalFile } from '../../config/journal.js';
import { configDir } from '../../config/paths.js';
import { isText, isTime, type DecisionLine, type HeldState, type RowLine, type SendLine, type Status } from './lines.js';

interface Scope {
  baseUrl: string;
  accountId: string;
}

const LEGACY_ATTEMPT = 'legacy';

/** Reads one legacy journal, or nothing when it is absent. */
function readLegacy(env: NodeJS.ProcessEnv, folder: string, name: string, containing?: readonly string[]): Array<Record<string, unknown>> {
  if (!existsSync(join(configDir(env), folder, `${name}.jsonl`))) return [];
  const file = openJournalFile<Record<string, unknown>>(env, folder, name, {
    parse: (v) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : undefined),
    ...(containing ? { containing } : {}),
  });
  file.close();
  return [...file.entries];
}

/**
 * Gives each line the attempt of the run that wrote it: a `tried` begins one, and the line that
 * follows it for the same key ends it (the old journals had no attempt of their own).
 */
function attemptsOf(lines: Array<{ key: string; status: Status }>): string[] {
  const open = new Map<string, string>();
  return lines.map((l, i) => {
    if (l.status === 'tried') {
      const id = `${LEGACY_ATTEMPT}-${i}`;
      open.set(l.key, id);
      return id;
    }
    const id = open.get(l.key) ?? `${LEGACY_ATTEMPT}-${i}`;
    open.delete(l.key);
    return id;
  });
}

/** The `transfer send` journal of a service and account (sends/<hash>.jsonl), lines naming `key`. */
export function legacySendLines(env: NodeJS.ProcessEnv, scope: Scope, key: string): SendLine[] {
  const name = createHash('sha256').update(`${scope.baseUrl}\u0000${scope.accountId}`).digest('hex').slice(0, 32);
  const raw = readLegacy(env, 'sends', name, [JSON.stringify(key)]).filter((e) => isText(e.key) && isTime(e.at) && isText(e.request) && isText(e.status));
  const statusOf = (s: unknown): Status | undefined => (s === 'tried' ? 'tried' : s === 'not_sent' ? 'not_sent' : s === 'sent' || s === 'held' ? 'accepted' : undefined);
  const lines = raw.flatMap((e) => {
    const status = statusOf(e.status);
    if (!status || (e.status === 'sent' && !isText(e.transfer_id)) || (e.status === 'held' && !isText(e.transaction_id))) return [];
    const line: SendLine = { op: 'send', key: e.key as string, attempt: '', status, at: e.at as string, request: e.request as string };
    for (const f of ['sent_key', 'transfer_id', 'transaction_id', 'expires_at'] as const) if (isText(e[f])) line[f] = e[f];
    if (isTime(e.first_tried_at)) line.first_at = e.first_tried_at;
    if (e.status === 'held') line.held = 'pending_approval';
    return [line];
  });
  const attempts = attemptsOf(lines);
  return lines.map((l, i) => ({ ...l, attempt: attempts[i]! }));
}

/** A batch's journal (batches/<hash>.jsonl), its rows and instances in the ledger's words. */
export function legacyBatchLines(env: NodeJS.ProcessEnv, scope: Scope, batch: string): Array<RowLine | { op: 'batch'; batch: string; at: string; event: 'instance'; instance: string }> {
  const name = createHash('sha256').update(`batch-v2\u0000${scope.baseUrl}\u0000${scope.accountId}\u0000${batch}`).digest('hex').slice(0, 32);
  const raw = readLegacy(env, 'batches', name);
  const out: Array<RowLine | { op: 'batch'; batch: string; at: string; event: 'instance'; instance: string }> = [];
  const rows: Array<{ key: string; status: Status }> = [];
  const rowAt: number[] = [];
  for (const e of raw) {
    if (isText(e.new_instance)) {
      // The old journal did not time an instance: it began before its first row.
      out.push({ op: 'batch', batch, at: new Date(0).toISOString(), event: 'instance', instance: e.new_instance });
      continue;
    }
    if (!isText(e.row) || !isText(e.key) || !Number.isInteger(e.line) || !Number.isInteger(e.generation)) continue;
    const status = rowStatus(e);
    if (!status) continue;
    const tried = isTime(e.tried_at) ? e.tried_at : undefined;
    const line: RowLine = {
      op: 'row', batch, row: e.row, line: e.line as number, gen: e.generation as number, key: e.key, attempt: '', status,
      // The old journal timed the key's first try only: it is the line's time, as near as is known.
      at: tried ?? new Date(0).toISOString(), ...(tried ? { first_at: tried } : {}),
    };
    for (const f of ['instance', 'content', 'key_id', 'transfer_id', 'transaction_id', 'error_code'] as const) if (isText(e[f])) line[f] = e[f];
    if (e.status === 'held') line.held = 'pending_approval';
    if (e.final === true) line.remembered = true;
    rowAt.push(out.length);
    rows.push({ key: line.key, status });
    out.push(line);
  }
  const attempts = attemptsOf(rows);
  rowAt.forEach((at, i) => ((out[at] as RowLine).attempt = attempts[i]!));
  return out;
}

function rowStatus(e: Record<string, unknown>): Status | undefined {
  switch (e.status) {
    case 'tried':
      return 'tried';
    case 'sent':
      return isText(e.transfer_id) ? 'accepted' : undefined;
    case 'held':
      return isText(e.transaction_id) ? 'accepted' : undefined;
    case 'failed':
      // A refusal for good, or a 429 (not taken); any other failure may have made a transfer.
      return e.final === true || e.error_code === 'rate_limited' ? 'refused' : 'unknown';
    default:
      return undefined;
  }
}

const RESULT_STATE: Readonly<Record<string, { status: Status; held?: HeldState; error_code?: string }>> = {
  approved: { status: 'accepted', held: 'approved' },
  rejected: { status: 'accepted', held: 'rejected' },
  expired: { status: 'refused', held: 'expired', error_code: 'transaction_expired' },
  already_decided: { status: 'refused', error_code: 'transaction_already_decided' },
  unknown: { status: 'unknown' },
};

/** The approvals log (approvals/approvals.jsonl), every decision on this machine before the ledger. */
export function legacyDecisionLines(env: NodeJS.ProcessEnv): DecisionLine[] {
  return readLegacy(env, 'approvals', 'approvals').flatMap((e, i) => {
    const state = isText(e.result) ? RESULT_STATE[e.result] : undefined;
    if (!state || !isTime(e.time) || !isText(e.transaction_id) || !isText(e.base_url) || (e.decision !== 'approve' && e.decision !== 'reject')) return [];
    if (e.via !== 'pending approve' && e.via !== 'pending reject' && e.via !== 'pending review') return [];
    const line: DecisionLine = { op: 'decision', key: e.transaction_id, attempt: `${LEGACY_ATTEMPT}-${i}`, at: e.time, decision: e.decision, base_url: e.base_url, via: e.via, ...state };
    for (const f of ['agent', 'to', 'reason', 'transfer_id', 'profile'] as const) if (isText(e[f])) line[f] = e[f];
    return [line];
  });
}
