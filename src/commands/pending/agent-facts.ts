// What the review screen adds about the agent behind a held transaction, read fresh for each one
// (an approval made a moment ago changes all three): its spend today against its daily limit, its
// balance of the asset (an approval fails when it is short), and whether it has paid this
// recipient before. Amounts are decrypted here, never sent anywhere. Each is `unknown` when it
// cannot be read (no decryption key, a service without the sandbox's extensions, a network fault):
// looking never fails the review. docs/approvals.md.
import type { Needs } from '../../runtime/factory.js';
import { BalancesSchema, SpendPolicySchema, TransferPageSchema, type Agent, type PendingTransaction } from '../../api/schemas.js';
import { formatUnits, parseAmount } from '../../domain/amount.js';
import { compilePolicy, toPolicyUnits, validatePolicyFields } from '../../domain/policy.js';
import { relativeTime } from '../../io/time.js';
import { judgedAt, spentTodayFromService } from '../agent/policy-preview.js';
import { pickPolicyFields } from '../agent/policy-view.js';
import { fetchAgents } from '../agent/resolve.js';
import { assetOf, openHeld } from './queue.js';

export const UNKNOWN = 'unknown';
/** Pages of the agent's transfers read to find an earlier payment (newest first, 100 a page). */
const PAGES = 10;
const PAGE = 100;

/** The three facts; `paidBefore` is drawn at each tick (it says how long ago). */
export interface AgentFacts {
  spentToday: string;
  balance: string;
  paidBefore: (serviceNowMs: number) => string;
}

/** Limits and spend are in policy units (6 decimals, USDG and USDC 1:1). */
const policyAmount = (units: bigint) => formatUnits(units, 'USDC');

/**
 * Reads the facts for held transactions; the agent list is read once and again when an agent is
 * not in it (one created meanwhile).
 */
export function agentFactsLookup(ctx: Needs<'client' | 'reader' | 'serviceClock'>): (tx: PendingTransaction) => Promise<AgentFacts> {
  let agents: Promise<Agent[]> | undefined;
  const findAgent = async (handle: string): Promise<Agent | undefined> => {
    const client = await ctx.client();
    const wanted = handle.toLowerCase();
    agents ??= fetchAgents(client);
    let found = (await agents.catch(() => [])).find((a) => a.handle.toLowerCase() === wanted);
    if (!found) {
      agents = fetchAgents(client);
      found = (await agents.catch(() => [])).find((a) => a.handle.toLowerCase() === wanted);
    }
    return found;
  };
  return async (tx) => {
    const agent = await findAgent(tx.agent).catch(() => undefined);
    const amountUnits = await heldUnits(ctx, tx);
    if (!agent) return { spentToday: UNKNOWN, balance: UNKNOWN, paidBefore: () => UNKNOWN };
    const [spentToday, balance, paidBefore] = await Promise.all([
      spendLine(ctx, agent, amountUnits === undefined ? undefined : toPolicyUnits(amountUnits, assetOf(tx))).catch(() => UNKNOWN),
      balanceLine(ctx, agent, assetOf(tx), amountUnits).catch(() => UNKNOWN),
      paidBeforeLine(ctx, agent, tx.to).catch(() => () => UNKNOWN),
    ]);
    return { spentToday, balance, paidBefore };
  };
}

/** The held amount in the asset's minor units, when it opens here. */
async function heldUnits(ctx: Needs<'reader'>, tx: PendingTransaction): Promise<bigint | undefined> {
  const opened = await openHeld(ctx, tx).catch(() => undefined);
  if (opened?.amount === undefined) return undefined;
  const r = parseAmount(opened.amount, assetOf(tx));
  return r.ok ? r.units : undefined;
}

/**
 * `120.00 of its 500.00 daily limit (380.00 left)`, with `; over it with this one` when approving
 * would pass the limit (an approval is the owner's decision: the policy is not applied again);
 * `120.00 (no daily limit)`; `unknown` when today's spend does not open here.
 */
async function spendLine(ctx: Needs<'client' | 'reader' | 'serviceClock'>, agent: Agent, thisOne: bigint | undefined): Promise<string> {
  const client = await ctx.client();
  const { data, serverTime } = await client.get(`/v1/agents/${encodeURIComponent(agent.account_id)}/spend-policy`, { schema: SpendPolicySchema });
  const fields = validatePolicyFields(pickPolicyFields(data), 'read');
  const limit = fields.ok ? compilePolicy(fields.fields).dailyLimit : undefined;
  const spent = await spentTodayFromService(ctx, data, agent.account_id, judgedAt(serverTime, ctx.serviceClock));
  if (spent === undefined) return limit === undefined ? `${UNKNOWN} (no daily limit)` : `${UNKNOWN} of its ${policyAmount(limit)} daily limit`;
  if (limit === undefined) return `${policyAmount(spent)} (no daily limit)`;
  const left = limit > spent ? limit - spent : 0n;
  const over = thisOne !== undefined && spent + thisOne > limit ? '; over it with this one' : '';
  return `${policyAmount(spent)} of its ${policyAmount(limit)} daily limit (${policyAmount(left)} left)${over}`;
}

/**
 * `940.00 USDG`, or `40.00 USDG: not enough for this one` (the approval would be refused);
 * from the sandbox's GET /v1/agents/{id}/balances, encrypted to the owner.
 */
async function balanceLine(ctx: Needs<'client' | 'reader'>, agent: Agent, asset: string, thisOne: bigint | undefined): Promise<string> {
  const reader = await ctx.reader();
  if (!reader) return UNKNOWN;
  const client = await ctx.client();
  const { data } = await client.get(`/v1/agents/${encodeURIComponent(agent.account_id)}/balances`, { schema: BalancesSchema });
  const entry = data.balances.find((b) => b.asset === asset);
  let units: bigint | undefined;
  if (!entry) units = 0n; // never held this asset
  else if (entry.nonzero === false) units = 0n;
  else if (typeof entry.ciphertext === 'string' && typeof entry.version === 'number') units = reader.agentBalanceUnits(agent.account_id, asset, entry.version, entry.ciphertext);
  if (units === undefined) return UNKNOWN;
  const shown = `${formatUnits(units, asset)} ${asset}`;
  return thisOne !== undefined && units < thisOne ? `${shown}: not enough for this one` : shown;
}

/** One recipient as another: handles case-insensitively, 0x addresses whatever their checksum case. */
const sameRecipient = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * `yes, 3 times (the last 2h ago)`, `no: this is its first payment to @acme`, or `not in its
 * last 1000 transfers`, from the agent's transfers (sandbox: GET /v1/agents/{id}/transfers).
 * Failed transfers moved nothing and do not count.
 */
async function paidBeforeLine(ctx: Needs<'client'>, agent: Agent, to: string): Promise<(nowMs: number) => string> {
  const client = await ctx.client();
  let count = 0;
  let last: string | undefined;
  for (let page = 0; page < PAGES; page++) {
    const { data } = await client.get(`/v1/agents/${encodeURIComponent(agent.account_id)}/transfers?limit=${PAGE}&offset=${page * PAGE}`, { schema: TransferPageSchema });
    for (const t of data.transfers) {
      if (t.status === 'failed' || !sameRecipient(t.to, to)) continue;
      count++;
      last ??= t.created_at; // newest first
    }
    if (!data.has_more) {
      return count === 0 ? () => 'no: this is its first payment to this recipient' : (now) => `yes, ${count === 1 ? 'once' : `${count} times`} (the last ${ago(last!, now)})`;
    }
  }
  return count === 0
    ? () => `not in its last ${PAGES * PAGE} transfers`
    : (now) => `yes, ${count} times in its last ${PAGES * PAGE} transfers (the last ${ago(last!, now)})`;
}

/** `2h ago`, `just now`. */
function ago(iso: string, nowMs: number): string {
  const when = relativeTime(iso, nowMs);
  return when === 'now' ? 'just now' : when;
}
