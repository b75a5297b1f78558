import type { App } from '../../app.js';
import { outputMode, printList, type Column } from '../../io/render.js';
import { fetchAgents } from './resolve.js';

export const AGENT_COLUMNS: Column[] = [
  { key: 'handle', header: 'HANDLE' },
  { key: 'account_id', header: 'ACCOUNT ID' },
  { key: 'status', header: 'STATUS' },
  { key: 'spend_policy_id', header: 'POLICY' },
  { key: 'public_key', header: 'CHAIN ADDRESS' },
];

export async function listAgents(app: App): Promise<void> {
  const agents = await fetchAgents(await app.client());
  printList(app.io, outputMode(app.io, app.json), agents, AGENT_COLUMNS, 'No agents yet. Create one with `svc agent create <name> --daily-limit ...`.');
}
