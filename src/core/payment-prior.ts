// What the ledger's lines of a key mean for a run about to pay under it. The lines of one command
// key may name two requests (the confidential transfer, and the standard one offered after a 422
// under a key derived from it): each is folded on its own (ledger/fold.ts), and the one furthest
// along decides. Then, for this run's request:
//   nothing, or nothing made          send
//   made (accepted or held)           show it, send nothing (another request: refused, exit 5)
//   unknown, within the service's     send again under the same key: the service answers for
//   memory by every clock             the first try
//   unknown, past it or in the future refuse, exit 5: svc cannot know, and never pays twice
import { SERVICE_KEY_MEMORY_MS } from '../domain/idempotency.js';
import { svc } from '../domain/shell-command.js';
import { CliError } from '../errors.js';
import { foldKey, STATUS_RANK, type KeyRecord, type Moment } from './ledger/fold.js';
import type { HeldState, SendLine } from './ledger/lines.js';
import { ageOf, type Now } from './ledger/memory.js';
import { forgottenUnknown } from './outcome.js';

/** A payment the service made under the key in an earlier run: shown instead of sent. */
export interface Earlier {
  /** The command's key, and the one the request went under. */
  key: string;
  sentKey: string;
  /** When it was recorded (this machine's clock). */
  at: string;
  transferId?: string;
  transactionId?: string;
  expiresAt?: string;
  /** What the held transaction had become when last learnt. */
  held?: HeldState;
}

export type Prior =
  | { kind: 'send' }
  /** Its outcome is unknown and the service still answers for it: the same request under `sentKey`. */
  | { kind: 'again'; sentKey: string; since: Moment }
  | { kind: 'earlier'; earlier: Earlier };

/** The record of a command key: the furthest along of the requests made under it. */
export function recordOf(lines: readonly SendLine[]): KeyRecord<SendLine> | undefined {
  const bySent = new Map<string, SendLine[]>();
  for (const l of lines) {
    const k = l.sent_key ?? l.key;
    const list = bySent.get(k);
    if (list) list.push(l);
    else bySent.set(k, [l]);
  }
  let best: KeyRecord<SendLine> | undefined;
  for (const group of bySent.values()) {
    const r = foldKey(group);
    if (r && (!best || STATUS_RANK[r.status] > STATUS_RANK[best.status])) best = r;
  }
  return best;
}

/** What to do with `key` for the request fingerprinted `request` (throws when it must not be sent). */
export function judge(record: KeyRecord<SendLine> | undefined, key: string, request: string, now: Now): Prior {
  if (!record || record.status === 'not_sent' || record.status === 'refused') return { kind: 'send' };
  const l = record.line;
  const what = l.transfer_id ? `transfer ${l.transfer_id}` : l.transaction_id ? `held transaction ${l.transaction_id}` : 'a transfer';
  const ids = { ...(l.transfer_id ? { transfer_id: l.transfer_id } : {}), ...(l.transaction_id ? { transaction_id: l.transaction_id } : {}) };
  if (l.request !== request) {
    throw new CliError('conflict', 'idempotency_key_reused', `idempotency key ${key} was used on ${l.at} for another payment (${what}); nothing was sent`, {
      hint: l.transfer_id ? `a new payment needs a new --idempotency-key; the earlier one: ${svc`transfer get ${l.transfer_id}`}` : 'a new payment needs a new --idempotency-key',
      details: { idempotency_key: key, ...ids },
    });
  }
  const sentKey = l.sent_key ?? l.key;
  if (record.status === 'accepted') {
    return {
      kind: 'earlier',
      earlier: {
        key, sentKey, at: record.settled.at,
        ...(l.transfer_id ? { transferId: l.transfer_id } : {}), ...(l.transaction_id ? { transactionId: l.transaction_id } : {}),
        ...(l.expires_at ? { expiresAt: l.expires_at } : {}), ...(l.held ? { held: l.held } : {}),
      },
    };
  }
  const since = record.firstTry ?? { at: l.at };
  const age = ageOf(since, now);
  if (age.kind === 'elapsed' && age.ms < SERVICE_KEY_MEMORY_MS) return { kind: 'again', sentKey, since };
  throw forgottenUnknown({ key, what: 'this transfer', payAgain: 'send it under a new --idempotency-key', details: ids }, since, age.kind === 'future');
}
