import type { App } from '../../app.js';
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

export async function listAgents(app: App): Promise<void> {
  const agents = await fetchAgents(await app.client());
  const mode = outputMode(app.io, app.json);
  printList(app.io, mode, agents, agentColumns(await addressDisplay(mode)), 'No agents yet. Create one: svc agent create <name> --daily-limit 100');
}
