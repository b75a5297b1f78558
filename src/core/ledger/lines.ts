// The ledger's one vocabulary: a line per event of a payment (`transfer send` and `svc mcp`), a
// batch row, a batch's run, or an approver's decision. Every line that records a request says
// what it did at the service with one `status`, the same words everywhere:
//   tried     about to leave, outcome not known yet (it stays so when the answer is lost or the
//             process is killed);
//   not_sent  it never left this machine;
//   refused   the service refused it, and no try before may have made anything;
//   unknown   a try may have reached the service and no answer says what it made;
//   accepted  the service made it: a transfer, a held transaction, a decision.
// What a held transaction became is `held` (pending_approval, approved, rejected, expired), on the
// agent's lines and the approver's alike. Lines hold ids, keys, keyed hashes, codes and times:
// never an amount, a memo or a ref. docs/idempotency.md, "The ledger".

export const STATUSES = ['tried', 'not_sent', 'refused', 'unknown', 'accepted'] as const;
export type Status = (typeof STATUSES)[number];

export const HELD_STATES = ['pending_approval', 'approved', 'rejected', 'expired'] as const;
export type HeldState = (typeof HELD_STATES)[number];

/** What every line that records a request has. */
export interface RequestLine {
  /** This run's nonce: a `tried` and the result that follows it share it. */
  attempt: string;
  status: Status;
  /** When it was written, by this machine's clock (ISO 8601). */
  at: string;
  /** The same moment on the service's clock, when this run had learnt it (ISO 8601). */
  svc_at?: string;
  /** For a line imported from an older journal: when the key was first tried. */
  first_at?: string;
  transfer_id?: string;
  transaction_id?: string;
  /** A held transaction's approval deadline, as the service answered it. */
  expires_at?: string;
  held?: HeldState;
  /** The refusal's (or the failure's) code. */
  error_code?: string;
}

/** A payment under one idempotency key (`transfer send`, `svc mcp`'s send_transfer). */
export interface SendLine extends RequestLine {
  op: 'send';
  /** The command's idempotency key (given or generated). */
  key: string;
  /** The key the request went under when it is not `key` (a standard transfer offered after a 422). */
  sent_key?: string;
  /** HMAC-SHA256 of the request under the local key: tells the same request from another. */
  request: string;
}

/** One row of a batch, under the key of its generation. */
export interface RowLine extends RequestLine {
  op: 'row';
  /** The batch's name. */
  batch: string;
  /** The instance (--new-batch); absent for the first. */
  instance?: string;
  /** The row's identity: a hash of its ref, or a keyed hash of what it pays (numbered). */
  row: string;
  /** Its line in the file of that run. */
  line: number;
  /** Which key of the row: 0, then one more after each refusal the service remembers. */
  gen: number;
  key: string;
  /** A keyed hash of what the row paid (tells a ref's row that changed since). */
  content?: string;
  /** The fingerprint of the local key the row's hashes were made with. */
  key_id?: string;
  /** A refusal the service keeps under the key (it would answer the same again): the next try needs the next key. */
  remembered?: boolean;
}

/** An event of a batch as a whole. */
export interface BatchLine {
  op: 'batch';
  batch: string;
  at: string;
  svc_at?: string;
  /** `instance`: --new-batch began one; `run`: a run began sending; `end`: it ended. */
  event: 'instance' | 'run' | 'end';
  instance?: string;
  /** Where the rows came from: a keyed hash of the file's real path, or `stdin`. */
  source?: string;
  /** `end`: whether every row of the file was accepted (none failed, skipped or left). */
  complete?: boolean;
}

/** An approver's decision on a held transaction (`pending approve|reject|review`). */
export interface DecisionLine extends RequestLine {
  op: 'decision';
  /** The held transaction's id. */
  key: string;
  decision: 'approve' | 'reject';
  agent?: string;
  to?: string;
  reason?: string;
  /** The profile in use; absent when the key came from the environment alone. */
  profile?: string;
  base_url: string;
  via: 'pending approve' | 'pending reject' | 'pending review';
  /** The deciding key's name, as the service answered it (beyond the spec: quorum). */
  key_name?: string;
  /** Approvals counted after this decision, and how many the transaction needs (quorum). */
  approvals?: number;
  approvals_required?: number;
}

export type Line = SendLine | RowLine | BatchLine | DecisionLine;

const TEXT_FIELDS = ['svc_at', 'first_at', 'transfer_id', 'transaction_id', 'expires_at', 'error_code', 'sent_key', 'instance', 'content', 'key_id', 'source', 'agent', 'to', 'reason', 'profile', 'key_name'] as const;

export const isText = (v: unknown): v is string => typeof v === 'string';
/** A string Date.parse reads (an ISO 8601 time, as the ledger writes them). */
export const isTime = (v: unknown): v is string => isText(v) && !Number.isNaN(Date.parse(v));
const has = <T extends string>(list: readonly T[], v: unknown): v is T => list.includes(v as T);

/** A line as written by the ledger, or undefined (a line torn by a kill, or not ours): it is skipped. */
export function parseLine(v: unknown): Line | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const l = v as Record<string, unknown>;
  if (!isTime(l.at) || (l.svc_at !== undefined && !isTime(l.svc_at)) || (l.first_at !== undefined && !isTime(l.first_at))) return undefined;
  if (TEXT_FIELDS.some((k) => l[k] !== undefined && !isText(l[k]))) return undefined;
  if (l.held !== undefined && !has(HELD_STATES, l.held)) return undefined;
  switch (l.op) {
    case 'batch':
      return isText(l.batch) && has(['instance', 'run', 'end'] as const, l.event) ? (l as unknown as BatchLine) : undefined;
    case 'send':
      return requestOk(l) && isText(l.request) ? (l as unknown as SendLine) : undefined;
    case 'row':
      return requestOk(l) && isText(l.batch) && isText(l.row) && Number.isInteger(l.line) && Number.isInteger(l.gen) ? (l as unknown as RowLine) : undefined;
    case 'decision':
      return requestOk(l) && has(['approve', 'reject'] as const, l.decision) && isText(l.base_url) && isText(l.via) ? (l as unknown as DecisionLine) : undefined;
    default:
      return undefined;
  }
}

function requestOk(l: Record<string, unknown>): boolean {
  if (!isText(l.key) || !isText(l.attempt) || !has(STATUSES, l.status)) return false;
  // An accepted line names what was made.
  return l.status !== 'accepted' || isText(l.transfer_id) || isText(l.transaction_id) || l.op === 'decision';
}
