import type { Needs } from '../../runtime/factory.js';
import { addressCell, addressDisplay, type ShowAddress } from '../../io/addresses.js';
import { addressColumn, idColumn } from '../../io/columns.js';
import { outputMode, printList, type Column } from '../../io/render.js';
import { fetchAgents } from './resolve.js';

/** `show` writes chain addresses for a person (addressDisplay: EIP-55 on a terminal). */
export function agentColumns(show: ShowAddress): Column[] {
  return [
    addressColumn('handle', 'HANDLE', { min: 16 }),
    idColumn('account_id', 'ACCOUNT ID', { drop: 2 }),
    { key: 'status', header: 'STATUS' },
    idColumn('spend_policy_id', 'POLICY', { drop: 1 }),
    addressColumn('public_key', 'CHAIN ADDRESS', { format: addressCell(show) }),
  ];
}

export async function listAgents(ctx: Needs<'client' | 'io' | 'json'>): Promise<void> {
  const agents = await fetchAgents(await ctx.client());
  const mode = outputMode(ctx.io, ctx.json);
  printList(ctx.io, mode, agents, agentColumns(await addressDisplay(mode)), 'No agents yet. Create one: svc agent create <name> --daily-limit 100');
}
