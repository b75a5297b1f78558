// `svc agent ls`: what an owner looks for in each agent (status, limits, today's spend, held
// transfers), not cut ids: account and policy ids and the chain address stay in --json, TSV and
// `agent get`. Each agent's policy is one read; today's spend shows only where it decrypts here.
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { listOf, PendingTransactionSchema, SpendPolicySchema, type Agent } from '../../api/schemas.js';
import { formatUnits } from '../../domain/amount.js';
import { outputMode, printList, type Column, type Row } from '../../io/render.js';
import { judgedAt, spentTodayFromService } from './policy-preview.js';
import { limitText } from './policy-view.js';
import { fetchAgents } from './resolve.js';
import { ApiError } from '../../errors.js';

/** How many policy reads run at once. */
const PARALLEL = 4;

/** A limit cell: `500.00 USD`, `none` when unset, `?` when the policy could not be read. */
const limitColumn = (key: string, header: string, drop?: number): Column => ({
  key, header, align: 'right', format: (v, row) => (row.policy_unread ? '?' : limitText(v) ?? 'none'), ...(drop === undefined ? {} : { drop }),
});

/**
 * Table: the person's view, handles whole (on a narrow terminal the approval threshold, then the
 * per-transaction limit, give way first, after the approvals count); TSV: the old five columns first, then the new ones (scripts cutting by position keep working). */
export function agentColumns(): Column[] {
  return [
    { key: 'handle', header: 'HANDLE' },
    { key: 'account_id', header: 'ACCOUNT ID', only: 'tsv' },
    { key: 'status', header: 'STATUS' },
    { key: 'spend_policy_id', header: 'POLICY', only: 'tsv' },
    { key: 'public_key', header: 'CHAIN ADDRESS', only: 'tsv' },
    limitColumn('daily_limit_usdc', 'DAILY LIMIT'),
    { key: 'spent_today', header: 'SPENT TODAY', align: 'right', format: (v, row) => (row.policy_unread ? '?' : typeof v === 'string' && v ? v : 'unknown') },
    limitColumn('per_transaction_limit_usdc', 'PER-TRANSACTION LIMIT', 2),
    limitColumn('hitl_threshold_usdc', 'APPROVAL THRESHOLD', 1),
    { key: 'held', header: 'HELD', align: 'right', format: (v) => (v === undefined || v === null || v === '' ? '?' : String(v)) },
    // Last, so TSV columns by position stay; on a narrow terminal it gives way first.
    { key: 'approvals_required', header: 'APPROVALS', align: 'right', drop: 0, format: (v, row) => (row.policy_unread ? '?' : String(v ?? 1)) },
  ];
}

export async function listAgents(ctx: Needs<'client' | 'io' | 'json' | 'reader' | 'serviceClock'>): Promise<void> {
  const client = await ctx.client();
  const agents = await fetchAgents(client);
  const mode = outputMode(ctx.io, ctx.json);
  // --json stays the service's agents, as before.
  if (mode === 'json') return printList(ctx.io, mode, agents, agentColumns());
  const held = agents.length ? await heldCounts(client) : undefined;
  const rows = await inBatches(agents, (a) => agentRow(ctx, client, a, held));
  printList(ctx.io, mode, rows, agentColumns(), 'No agents yet. Create one: svc agent create <name> --daily-limit 100');
  if (mode !== 'table') return;
  if (rows.some((r) => r.policy_unread)) ctx.io.err('?: the service did not let this key read that agent\'s policy (`svc agent policy get <agent>` says why)\n');
  if (rows.some((r) => !r.policy_unread && r.spent_today === undefined && r.daily_limit_usdc !== undefined)) {
    ctx.io.err("today's spend is unknown where the service does not give it or it does not decrypt here (no decryption key in this profile)\n");
  }
}

/** One row: the agent, its limits (as the service sent them) and today's spend when it decrypts here. */
async function agentRow(ctx: Needs<'reader' | 'serviceClock'>, client: ApiClient, agent: Agent, held: Map<string, number> | undefined): Promise<Row> {
  let read;
  try {
    read = await client.get(`/v1/agents/${encodeURIComponent(agent.account_id)}/spend-policy`, { schema: SpendPolicySchema });
  } catch (err) {
    // A policy this key may not read (or a service without the route): the row says `?`, never "none".
    if (err instanceof ApiError) return { ...agent, policy_unread: true, held: held?.get(agent.handle.toLowerCase()) ?? (held ? 0 : undefined) };
    throw err;
  }
  const { data, serverTime } = read;
  const spent = await spentTodayFromService(ctx, data, agent.account_id, judgedAt(serverTime, ctx.serviceClock)).catch(() => undefined);
  return {
    ...agent,
    daily_limit_usdc: data.daily_limit_usdc,
    spent_today: spent === undefined ? undefined : formatUnits(spent, 'USDG', { minFraction: 2 }),
    per_transaction_limit_usdc: data.per_transaction_limit_usdc,
    hitl_threshold_usdc: data.hitl_threshold_usdc,
    // Beyond the spec: a service without quorums needs one approval.
    approvals_required: data.approvals_required ?? 1,
    held: held === undefined ? undefined : held.get(agent.handle.toLowerCase()) ?? 0,
  };
}

/** Held transactions waiting for approval, per agent handle; undefined when the queue cannot be read. */
async function heldCounts(client: ApiClient): Promise<Map<string, number> | undefined> {
  try {
    const { data } = await client.get('/v1/agents/transactions/pending', { schema: listOf('pending', PendingTransactionSchema) });
    const counts = new Map<string, number>();
    for (const tx of data.items) counts.set(tx.agent.toLowerCase(), (counts.get(tx.agent.toLowerCase()) ?? 0) + 1);
    return counts;
  } catch {
    return undefined;
  }
}

async function inBatches<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += PARALLEL) out.push(...(await Promise.all(items.slice(i, i + PARALLEL).map(fn))));
  return out;
}
