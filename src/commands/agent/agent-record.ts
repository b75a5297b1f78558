// One agent for a person (`agent get`, and `agent create` once it exists): its ids and chain
// address as `Field  value` lines, then its spend policy.
import type { Needs } from '../../runtime/factory.js';
import { addressCell, addressDisplay } from '../../io/addresses.js';
import { outputMode, printRecord, type Row } from '../../io/render.js';
import { printPolicy } from './policy-view.js';

export async function printAgentRecord(ctx: Needs<'io' | 'serviceClock'>, agent: Row, policy: Row): Promise<void> {
  const mode = outputMode(ctx.io, false);
  const show = await addressDisplay(mode);
  printRecord(ctx.io, mode, agent, [
    { key: 'handle', header: 'Handle' },
    { key: 'account_id', header: 'Account ID' },
    { key: 'status', header: 'Status' },
    { key: 'spend_policy_id', header: 'Policy ID', only: 'tsv' }, // the table shows it with the policy below
    { key: 'public_key', header: 'Chain address', format: addressCell(show) },
  ]);
  if (mode === 'table') ctx.io.out('\nSpend policy\n');
  printPolicy(ctx.io, mode, policy, () => ctx.serviceClock.now());
}
