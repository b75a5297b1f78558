import type { App } from '../../app.js';
import { addressColumn, idColumn } from '../../io/columns.js';
import { outputMode, printList, type Column } from '../../io/render.js';
import { fetchAgents } from './resolve.js';

export const AGENT_COLUMNS: Column[] = [
  addressColumn('handle', 'HANDLE', { min: 16 }),
  idColumn('account_id', 'ACCOUNT ID', { drop: 2 }),
  { key: 'status', header: 'STATUS' },
  idColumn('spend_policy_id', 'POLICY', { drop: 1 }),
  addressColumn('public_key', 'CHAIN ADDRESS'),
];

export async function listAgents(app: App): Promise<void> {
  const agents = await fetchAgents(await app.client());
  printList(app.io, outputMode(app.io, app.json), agents, AGENT_COLUMNS, 'No agents yet. Create one: svc agent create <name> --daily-limit 100');
}
