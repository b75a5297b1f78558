// `svc agent ls|create|policy get|policy set|policy check`.
import { Option, type Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';
import { CLEARABLE_NAMES } from './clear-flags.js';
import { helpFooter } from '../../runtime/help-text.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * The policy flags shared by `agent create` and `agent policy set`, named as tables and docs name
 * the fields (policy-names.ts); the old names still work, hidden from help.
 */
function policyFlags(cmd: Command): Command {
  return cmd
    .option('--daily-limit <usd>', 'daily limit (daily_limit_usdc): the most spent per UTC day, in USD, e.g. 500')
    .option('--per-transaction-limit <usd>', 'per-transaction limit (per_transaction_limit_usdc): the most one transfer may move, in USD')
    .addOption(new Option('--per-tx-limit <usd>').hideHelp())
    .option('--approval-threshold <usd>', 'approval threshold (hitl_threshold_usdc): transfers above it, in USD, are held for human approval')
    .addOption(new Option('--hitl-threshold <usd>').hideHelp())
    .option('--allow <pattern>', 'allowed recipient: @handle, 0x address or *.domain (repeatable)', collect)
    .option('--asset <asset>', 'allowed asset (repeatable)', collect)
    .option('--active-hours <HH:MM-HH:MM>', 'when the agent may transact, UTC; may wrap midnight (22:00-06:00)')
    .option('--approvals-required <n>', 'approvals required (approvals_required, beyond the spec): how many distinct owner keys must approve a held transfer, 1 to 5 (default 1)')
    .option('--policy-file <file>', 'JSON file with spend policy fields (flags override it); - for stdin');
}

export function registerAgent(program: Command, deps: ProgramDeps): void {
  const agent = program.command('agent').description('Agent sub-accounts and their spend policies');

  agent
    .command('ls')
    .alias('list')
    .description('List the agents under this account: status, limits, today\'s spend and held transfers')
    .action(async (_o, cmd: Command) => {
      const { listAgents } = await import('./ls.js');
      await listAgents(deps.factory(cmd));
    });

  agent
    .command('get <agent>')
    .description('Show an agent (agent = handle, name or account id): its ids, chain address and spend policy')
    .action(async (ref: string, _o, cmd: Command) => {
      const { getAgent } = await import('./get.js');
      await getAgent(deps.factory(cmd), ref);
    });

  policyFlags(
    agent
      .command('create <name>')
      .description('Create an agent account bound by a spend policy')
      .option('--save-profile <profile>', "sandbox: also make the agent's API key and save it, with its decryption key, as this profile")
      .option('--force', 'with --save-profile: replace a profile of that name')
      .addHelpText('after', helpFooter([
        '',
        'Examples:',
        '  $ svc agent create payroll-bot --daily-limit 500 --per-transaction-limit 100 --approval-threshold 50 \\',
        '      --allow @acme --allow "*.vendors.example" --asset USDG --active-hours 08:00-18:00',
        '  $ svc agent create ops --policy-file policy.json',
        '  $ svc agent create treasury-bot --approval-threshold 1000 --approvals-required 2   # two people above 1,000',
        '  $ svc agent create payroll-bot --daily-limit 500 --save-profile bot   # sandbox: key and profile in one step',
      ])),
  ).action(async (name: string, opts, cmd: Command) => {
    const { createAgent } = await import('./create.js');
    await createAgent(deps.factory(cmd), name, opts);
  });

  for (const action of ['suspend', 'resume'] as const) {
    agent
      .command(`${action} <agent>`)
      .description(action === 'suspend'
        ? 'Suspend an agent: its key can no longer move money; its held transactions stay for you to decide'
        : 'Resume a suspended agent: its key may move money again, within its spend policy')
      .addHelpText('after', helpFooter([``, `Examples:`, `  $ svc agent ${action} payroll-bot`, `  $ svc --json agent ${action} @acme/payroll-bot | jq -r .status`]))
      .action(async (ref: string, _o, cmd: Command) => {
        const { setAgentStatus } = await import('./status.js');
        await setAgentStatus(deps.factory(cmd), ref, action);
      });
  }

  const policy = agent.command('policy').description("Read, change or simulate an agent's spend policy");

  policy
    .command('get <agent>')
    .description('Show the spend policy (agent = handle, name or account id)')
    .action(async (ref: string, _o, cmd: Command) => {
      const { getPolicy } = await import('./policy-get.js');
      await getPolicy(deps.factory(cmd), ref);
    });

  policyFlags(
    policy
      .command('set <agent>')
      .description('Change only the given fields; shows a before/after diff and asks to confirm')
      .option('--add-allow <pattern>', 'add a recipient to the allowed list (repeatable)', collect)
      .option('--remove-allow <pattern>', 'remove a recipient from the allowed list (repeatable)', collect)
      .option('--clear <flag>', `remove a restriction, named by its flag: ${CLEARABLE_NAMES.join(', ')} (repeatable)`, collect)
      .addHelpText('after', helpFooter([
        '',
        'Only the fields given change (a JSON merge patch). --allow replaces the whole recipient list;',
        '--add-allow and --remove-allow edit it. --clear removes a restriction: --clear per-transaction-limit',
        'lifts the per-transaction limit.',
        '',
        'Examples:',
        '  $ svc agent policy set payroll-bot --daily-limit 750',
        '  $ svc agent policy set payroll-bot --add-allow @acme --remove-allow @oldvendor',
        '  $ svc agent policy set @acme/ops --clear active-hours --clear per-transaction-limit',
        '  $ svc agent policy set payroll-bot --approvals-required 2   # two distinct owner keys approve each held transfer',
      ])),
  ).action(async (ref: string, opts, cmd: Command) => {
    const { setPolicy } = await import('./policy-set.js');
    await setPolicy(deps.factory(cmd), ref, opts);
  });

  policy
    .command('check <agent>')
    .description('Simulate a transaction against the live policy, locally: allow, hold or deny (changes nothing)')
    .requiredOption('--to <recipient>', 'recipient @handle or 0x address')
    .requiredOption('--amount <amount>', 'amount, e.g. 25.00')
    .option('--asset <asset>', 'asset', 'USDG')
    .option('--at <time>', 'ISO 8601 instant to evaluate at (default: now)')
    .option('--spent-today <amount>', "override today's spend (default: from the service when it tells it, else 0)")
    .addHelpText('after', helpFooter(['', 'Examples:', '  $ svc agent policy check payroll-bot --to @acme --amount 75', '  $ svc agent policy check payroll-bot --to @acme --amount 75 --at 2026-11-23T23:30:00Z']))
    .action(async (ref: string, opts, cmd: Command) => {
      const { checkPolicy } = await import('./policy-check.js');
      await checkPolicy(deps.factory(cmd), ref, opts);
    });
}
