// The approval queue, and the one description of a held transaction that `pending ls`,
// `approve` / `reject` and `review` all show: agent, recipient, amount (decrypted here, or
// `encrypted`), memo, the rule that held it, when it was requested and the time left.
import type { Needs } from '../../runtime/factory.js';
import { listOf, PendingTransactionSchema, SpendPolicySchema, type Agent, type PendingTransaction } from '../../api/schemas.js';
import { DEFAULT_ASSET } from '../../domain/assets.js';
import { CliError } from '../../errors.js';
import { addressDisplay } from '../../io/addresses.js';
import { sanitize } from '../../io/sanitize.js';
import { relativeTime, timeLeft } from '../../io/time.js';
import { fetchAgents } from '../agent/resolve.js';
import { agentOwner } from '../../domain/handle.js';
import { isQuorum, quorumOf, type Quorum } from '../../core/quorum.js';
import { approvalsLine } from './elsewhere.js';

export interface Queue {
  items: PendingTransaction[];
}

const DATE_RESOLUTION_MS = 999;

/**
 * Now as an approver's countdown counts it: the service's clock (ctx.serviceClock.now(), learnt from
 * the Date header of its answers; the sandbox's can be advanced). The header counts whole
 * seconds, so the service's time is up to a second past it: the late end errs on the safe side
 * (a second less left, never a second more).
 */
export function approverNow(ctx: Needs<'serviceClock'>): number {
  return ctx.serviceClock.now() + (ctx.serviceClock.known ? DATE_RESOLUTION_MS : 0);
}

/** The queue, soonest to expire first. */
export async function fetchQueue(ctx: Needs<'client'>): Promise<Queue> {
  const client = await ctx.client();
  const res = await client.get('/v1/agents/transactions/pending', { schema: listOf('pending', PendingTransactionSchema) });
  return { items: [...res.data.items].sort((a, b) => Date.parse(a.expires_at) - Date.parse(b.expires_at)) };
}

/** What `pending ls` and `review` say when nothing is held (docs/agents.md). */
export const EMPTY_QUEUE = [
  'No transactions are waiting for approval.',
  "An agent's transfer above its approval threshold (hitl_threshold_usdc) waits here for you.",
  'To wait for the next one: svc pending review --watch',
].join('\n');

/**
 * An agent's key has no approval queue (agents cannot approve): the error that says so, when
 * the key is an agent's. The spec gives an agent the handle `@owner/name` (a slash), the only
 * handles with one, and the profile remembers the key's handle, so this costs no request when
 * it is known. Undefined for any other key, or when the account cannot be learnt.
 */
export async function agentKeyError(ctx: Needs<'account'>): Promise<CliError | undefined> {
  let handle: string;
  try {
    handle = (await ctx.account()).handle;
  } catch {
    return undefined;
  }
  const owner = agentOwner(handle);
  if (owner === undefined) return undefined;
  return new CliError('auth', 'forbidden', `${handle} is an agent: agents cannot approve or reject, so its key has no approval queue`, {
    hint: `the queue belongs to its owner ${owner}: use ${owner}'s key (\`svc --profile <owner-profile> pending ls\`); this key can follow its own held transactions: \`svc pending ls --all\`, \`svc pending wait <id>\``,
  });
}

/**
 * The queue of the person approving: as fetchQueue, but an agent's key (an empty queue, or a
 * service that refuses it) is told why it sees nothing (exit 3, `forbidden`).
 */
export async function fetchApproverQueue(ctx: Needs<'account' | 'client'>): Promise<Queue> {
  let queue: Queue;
  try {
    queue = await fetchQueue(ctx);
  } catch (err) {
    if (err instanceof CliError && err.code === 'forbidden') throw (await agentKeyError(ctx)) ?? err;
    throw err;
  }
  if (queue.items.length === 0) {
    const agentError = await agentKeyError(ctx);
    if (agentError) throw agentError;
  }
  return queue;
}

// ---- what local decryption opens ----------------------------------------------------------------

/** What local decryption opens of a held transaction (absent: not readable here, or none). */
export interface OpenedHeld {
  amount?: string;
  memo?: string;
  /** The transaction carries a memo, whether or not it opened. */
  hasMemo: boolean;
}

export async function openHeld(ctx: Needs<'reader'>, tx: PendingTransaction): Promise<OpenedHeld> {
  const memoCt = (tx as Record<string, unknown>).memo_ciphertext;
  const hasMemo = typeof memoCt === 'string';
  if (!tx.amount_ciphertext && !hasMemo) return { hasMemo };
  const reader = await ctx.reader();
  const amount = tx.amount_ciphertext ? reader?.heldAmount(tx.transaction_id, assetOf(tx), tx.amount_ciphertext) : undefined;
  const memo = hasMemo ? reader?.heldMemo(tx.transaction_id, memoCt) : undefined;
  return { hasMemo, ...(amount !== undefined ? { amount } : {}), ...(memo !== undefined ? { memo } : {}) };
}

export function assetOf(tx: PendingTransaction): string {
  return typeof tx.asset === 'string' ? tx.asset : DEFAULT_ASSET;
}

/** The amount for a human: `12.50 USDG`, or `encrypted`. */
export function shownAmount(tx: PendingTransaction, opened: OpenedHeld): string {
  return opened.amount === undefined ? 'encrypted' : `${opened.amount} ${assetOf(tx)}`;
}

/** The memo for a human: the text, `encrypted`, or undefined when there is none. */
export function shownMemo(opened: OpenedHeld): string | undefined {
  if (!opened.hasMemo) return undefined;
  return opened.memo ?? 'encrypted';
}

// ---- the rule that held it ----------------------------------------------------------------------

/** Said when the agent's policy cannot be read here (the command goes on regardless). */
export const UNKNOWN_RULE = "above the agent's approval threshold";

/** The agent's handle → the rule that holds its transactions, looked up once per run. */
export type RuleLookup = (agentHandle: string) => Promise<string>;

/**
 * What holds a transaction is always the agent's human-in-the-loop threshold: the agent (GET
 * /v1/accounts/me/agents, by handle) and its policy (GET /v1/agents/{id}/spend-policy) say
 * which (`above the approval threshold (hitl_threshold_usdc 50)`). Any failure gives
 * UNKNOWN_RULE, never an error.
 */
export function ruleLookup(ctx: Needs<'client'>): RuleLookup {
  let agents: Promise<Agent[]> | undefined;
  const rules = new Map<string, Promise<string>>();
  const find = async (handle: string): Promise<string> => {
    const client = await ctx.client();
    agents ??= fetchAgents(client);
    const agent = (await agents).find((a) => a.handle.toLowerCase() === handle.toLowerCase());
    if (!agent) return UNKNOWN_RULE;
    const { data } = await client.get(`/v1/agents/${encodeURIComponent(agent.account_id)}/spend-policy`, { schema: SpendPolicySchema });
    const threshold = data.hitl_threshold_usdc;
    // A JSON number: policy limits have at most 6 decimals, so this is its plain decimal text.
    if (threshold === undefined || !Number.isFinite(threshold) || /e/i.test(String(threshold))) return UNKNOWN_RULE;
    return `above the approval threshold (hitl_threshold_usdc ${String(threshold)})`;
  };
  return (handle) => {
    const key = handle.toLowerCase();
    let rule = rules.get(key);
    if (!rule) {
      // A failed look-up is not kept: the next transaction of this agent tries again (a watch
      // that started while the service was away learns the rule once it is back).
      rule = find(handle).catch(() => {
        rules.delete(key);
        return UNKNOWN_RULE;
      });
      rules.set(key, rule);
    }
    return rule;
  };
}

// ---- the description ----------------------------------------------------------------------------

/** A held transaction for a person, as the service and local decryption give it (raw text). */
export interface HeldView {
  id: string;
  agent: string;
  to: string;
  /** `60.00 USDG`, or `encrypted`. */
  amount: string;
  /** The memo, `encrypted`, or undefined when there is none. */
  memo?: string;
  /** The rule that held it, when looked up. */
  rule?: string;
  requestedAt: string;
  expiresAt: string;
  expiresAtMs: number;
  /** How many approvals it needs and who gave them so far, when the service says (quorum). */
  quorum?: Quorum;
}

/**
 * The one description of a held transaction; `rules` adds the rule that held it. It is for a
 * person: a 0x recipient is in its EIP-55 form.
 */
export async function describeHeld(ctx: Needs<'reader'>, tx: PendingTransaction, rules?: RuleLookup): Promise<HeldView> {
  const [opened, rule, show] = await Promise.all([openHeld(ctx, tx), rules?.(tx.agent), addressDisplay('table')]);
  const memo = shownMemo(opened);
  const quorum = quorumOf(tx);
  return {
    id: tx.transaction_id,
    agent: tx.agent,
    to: show(tx.to),
    amount: shownAmount(tx, opened),
    ...(memo !== undefined ? { memo } : {}),
    ...(rule !== undefined ? { rule } : {}),
    requestedAt: tx.requested_at,
    expiresAt: tx.expires_at,
    expiresAtMs: Date.parse(tx.expires_at),
    ...(quorum ? { quorum } : {}),
  };
}

/** One detail line, sanitised: `amount       60.00 USDG`. */
export function line(label: string, value: string): string {
  return `${label.padEnd(12)} ${sanitize(value)}`;
}

/** `14m52s`, `2h05m` or `expired`, by the service's clock. */
export function heldTimeLeft(view: HeldView, serviceNowMs: number): string {
  return Number.isNaN(view.expiresAtMs) ? sanitize(view.expiresAt) : timeLeft(view.expiresAtMs, serviceNowMs);
}

/** One line, sanitised: `60.00 USDG from @alice/bot to @acme` (or `an encrypted amount from ...`). */
export function heldSummary(view: HeldView): string {
  const amount = view.amount === 'encrypted' ? 'an encrypted amount' : sanitize(view.amount);
  return `${amount} from ${sanitize(view.agent)} to ${sanitize(view.to)}`;
}

/**
 * The detail lines, sanitised: agent, to, amount, memo, the rule that held it, the approvals so
 * far where more than one is needed (`1 of 2 so far: key "ops2" of @alice`), when requested
 * and (unless the caller draws its own countdown) the time left.
 */
export function heldDetails(view: HeldView, serviceNowMs: number, opts: { timeLeft?: boolean } = {}): string[] {
  return [
    line('agent', view.agent),
    line('to', view.to),
    line('amount', view.amount),
    ...(view.memo === undefined ? [] : [line('memo', view.memo)]),
    ...(view.rule === undefined ? [] : [line('held', view.rule)]),
    ...(isQuorum(view.quorum) ? [line('approvals', approvalsLine(view.quorum))] : []),
    line('requested', relativeTime(view.requestedAt, serviceNowMs)),
    ...(opts.timeLeft === false ? [] : [line('time left', heldTimeLeft(view, serviceNowMs))]),
  ];
}
