// An approver's decision on a held transaction, sent once and written down in the ledger of the
// approver's account, in the same words as every payment (ledger/lines.ts): `tried` before the
// request leaves, then what it did: accepted (approved or rejected, with the transfer an approval
// made), refused (the window had passed: `held: expired`; decided by someone else), not sent, or
// unknown (the answer was lost: it may have been applied, a 5xx included). `pending log` reads
// these lines back on every ledger of the machine (and an older svc's approvals log). Who decided
// what and when, never how much. docs/approvals.md.
import * as z from 'zod/mini';
import type { Needs } from '../runtime/factory.js';
import { accountCacheKey } from '../config/account-cache.js';
import { CliError } from '../errors.js';
import { sanitize } from '../io/sanitize.js';
import { Ledger } from './ledger/ledger.js';
import { legacyDecisionLines } from './ledger/legacy.js';
import type { DecisionLine } from './ledger/lines.js';
import { foldKey } from './ledger/fold.js';
import { ledgerClocks } from './service-time.js';
import { quorumOf, type Quorum } from './quorum.js';

export const DecisionSchema = z.looseObject({
  transaction_id: z.string(),
  status: z.string(),
  // null (or absent) for a rejection: no transfer was made.
  transfer_id: z.optional(z.nullable(z.string())),
});
export type DecisionAnswer = z.infer<typeof DecisionSchema>;

export type Decision = 'approve' | 'reject';

/** What a caller says about one decision; the times, profile and service are added here. */
export interface DecisionFacts {
  transaction_id: string;
  decision: Decision;
  via: DecisionLine['via'];
  agent?: string;
  to?: string;
  reason?: string;
}

/** The base URL as recorded: scheme, host and path only (no credentials, no query). */
export function recordedBaseUrl(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(unreadable base URL)';
  }
}

type DecideCtx = Needs<'account' | 'auth' | 'client' | 'clock' | 'env' | 'io' | 'serviceClock'>;

/** The decisions of one run (`pending approve|reject`, or every decision of `pending review`). */
export class Decisions {
  private constructor(
    private readonly ctx: DecideCtx,
    private readonly ledger: Ledger | undefined,
    private readonly where: { profile?: string; base_url: string },
  ) {}

  static async open(ctx: DecideCtx): Promise<Decisions> {
    const auth = await ctx.auth();
    const where = { ...(auth.profileName ? { profile: auth.profileName } : {}), base_url: recordedBaseUrl(auth.baseUrl) };
    const client = await ctx.client();
    // The ledger of the approver's account; where the service cannot say which account the key
    // is, one of the key's own (only `pending log` reads decisions, from every ledger file).
    const accountId = await ctx.account().then((a) => a.account_id, () => `key:${accountCacheKey(auth.baseUrl, auth.apiKey)}`);
    let ledger: Ledger | undefined;
    try {
      // Nothing of the ledger is read: a decision's lines are written, and read by `pending log`.
      ledger = Ledger.open(ctx.env, { baseUrl: client.baseUrl, accountId }, ledgerClocks(ctx), []);
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      ctx.io.err(`warning: this decision is not recorded on this machine: ${sanitize(err.message)}\n`);
    }
    return new Decisions(ctx, ledger, where);
  }

  /**
   * Sends one decision (a reject's reason in its body: beyond the spec, docs/agents.md) with its
   * ledger lines; the service's errors (404 not found, 409 expired ...) propagate with their exit codes.
   */
  async decide(facts: DecisionFacts): Promise<DecisionAnswer> {
    const base = { op: 'decision' as const, key: facts.transaction_id, decision: facts.decision, via: facts.via, ...this.where, ...described(facts) };
    const client = await this.ctx.client();
    this.write({ ...base, status: 'tried' });
    const body = facts.decision === 'reject' && facts.reason !== undefined ? { reason: facts.reason } : {};
    let data: DecisionAnswer;
    try {
      ({ data } = await client.post(`/v1/agents/transactions/${encodeURIComponent(facts.transaction_id)}/${facts.decision}`, { body, schema: DecisionSchema }));
    } catch (err) {
      const delivery = err instanceof CliError ? (err.delivery ?? 'unknown') : 'unknown';
      const code = err instanceof CliError ? err.code : undefined;
      this.write({ ...base, status: delivery, ...(code ? { error_code: code } : {}), ...(code === 'transaction_expired' && delivery === 'refused' ? { held: 'expired' as const } : {}) });
      throw err;
    }
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    // An approval short of the quorum leaves it pending: a line of its own, `held: pending_approval`.
    const held = data.status === 'approved' || data.status === 'rejected' || (data.status === 'pending_approval' && facts.decision === 'approve')
      ? data.status
      : facts.decision === 'approve' ? 'approved' : 'rejected';
    const agent = facts.agent ?? str(data.agent);
    const to = facts.to ?? str(data.to);
    const quorum = quorumOf(data);
    const keyName = deciderOf(data, quorum);
    this.write({
      ...base, status: 'accepted', held, ...(agent !== undefined ? { agent } : {}), ...(to !== undefined ? { to } : {}),
      ...(typeof data.transfer_id === 'string' ? { transfer_id: data.transfer_id } : {}),
      ...(keyName !== undefined ? { key_name: keyName } : {}),
      ...(quorum && facts.decision === 'approve' ? { approvals: quorum.approvals.length, approvals_required: quorum.required } : {}),
    });
    return data;
  }

  /**
   * A line, written through. The decision is made on the service whatever happens here: a ledger
   * that cannot be written is one warning on stderr, not a failure of the command.
   */
  private write(line: Omit<DecisionLine, 'at' | 'svc_at' | 'attempt'>): void {
    if (!this.ledger) return;
    try {
      this.ledger.record(line);
    } catch (err) {
      this.ctx.io.err(`warning: this decision is not recorded on this machine: ${sanitize((err as Error).message)}\n`);
    }
  }

  close(): void {
    try {
      this.ledger?.close();
    } catch {
      // Housekeeping only.
    }
  }
}

/**
 * The key that made this decision, as the answer names it: `decided_by` once decided; for an
 * approval short of the quorum, the newest approval (the answer is the state just after it).
 */
function deciderOf(data: DecisionAnswer, quorum: Quorum | undefined): string | undefined {
  const by = (data as Record<string, unknown>).decided_by;
  if (by && typeof by === 'object' && typeof (by as Record<string, unknown>).key_name === 'string') return (by as { key_name: string }).key_name;
  return data.status === 'pending_approval' ? quorum?.approvals.at(-1)?.keyName : undefined;
}

function described(f: DecisionFacts): Partial<DecisionLine> {
  return { ...(f.agent !== undefined ? { agent: f.agent } : {}), ...(f.to !== undefined ? { to: f.to } : {}), ...(f.reason !== undefined ? { reason: f.reason } : {}) };
}

/** `partial`: an approval counted short of the quorum (it stays pending); `already_approved`: this key's approval was counted before. */
export const RESULTS = ['approved', 'partial', 'rejected', 'expired', 'already_decided', 'already_approved', 'unknown'] as const;
export type DecisionResult = (typeof RESULTS)[number];

/** One decision as `pending log` shows it (and as the approvals log of an older svc recorded it). */
export interface DecisionEntry {
  time: string;
  transaction_id: string;
  decision: Decision;
  result: DecisionResult;
  agent?: string;
  to?: string;
  reason?: string;
  transfer_id?: string;
  profile?: string;
  base_url: string;
  via: DecisionLine['via'];
  /** The deciding key's name, approvals counted after it and how many were needed (quorum). */
  key_name?: string;
  approvals?: number;
  approvals_required?: number;
}

/** What an attempt's lines say it did, in the log's words; undefined when it changed nothing (not sent, or refused and free to make again). */
function resultOf(lines: readonly DecisionLine[]): { result: DecisionResult; last: DecisionLine } | undefined {
  const r = foldKey(lines);
  if (!r) return undefined;
  const last = lines.at(-1)!;
  if (r.status === 'accepted') return { result: r.line.held === 'rejected' ? 'rejected' : r.line.held === 'pending_approval' ? 'partial' : 'approved', last: r.line };
  if (r.status === 'unknown') return { result: 'unknown', last };
  if (r.status === 'refused' && last.error_code === 'transaction_expired') return { result: 'expired', last };
  if (r.status === 'refused' && last.error_code === 'transaction_already_decided') return { result: 'already_decided', last };
  if (r.status === 'refused' && last.error_code === 'already_approved') return { result: 'already_approved', last };
  return undefined;
}

const count = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);

/** Every decision recorded on this machine, oldest first: each run's attempt at one, as it ended. */
export function readDecisions(env: NodeJS.ProcessEnv): DecisionEntry[] {
  const lines: DecisionLine[] = [...legacyDecisionLines(env)];
  for (const name of Ledger.files(env)) {
    for (const l of Ledger.readFile(env, name, ['"op":"decision"'])) if (l.op === 'decision') lines.push(l);
  }
  const attempts = new Map<string, DecisionLine[]>();
  for (const l of lines) {
    const id = `${l.attempt}\u0000${l.key}`;
    const list = attempts.get(id);
    if (list) list.push(l);
    else attempts.set(id, [l]);
  }
  const entries: Array<DecisionEntry & { order: number }> = [];
  for (const group of attempts.values()) {
    const found = resultOf(group);
    if (!found) continue;
    const l = found.last;
    entries.push({
      time: l.at, transaction_id: l.key, decision: l.decision, result: found.result,
      ...(l.agent !== undefined ? { agent: l.agent } : {}), ...(l.to !== undefined ? { to: l.to } : {}), ...(l.reason !== undefined ? { reason: l.reason } : {}),
      ...(l.transfer_id !== undefined ? { transfer_id: l.transfer_id } : {}), ...(l.profile !== undefined ? { profile: l.profile } : {}),
      base_url: l.base_url, via: l.via, ...(l.key_name !== undefined ? { key_name: l.key_name } : {}),
      ...(count(l.approvals) !== undefined && count(l.approvals_required) !== undefined ? { approvals: l.approvals!, approvals_required: l.approvals_required! } : {}),
      // Ordered by the service's clock where known: one clock for every process and machine that
      // decided (each svc's own may disagree), else this machine's.
      order: Date.parse(l.svc_at ?? l.at),
    });
  }
  return entries.sort((a, b) => a.order - b.order).map(({ order: _order, ...e }) => e);
}
