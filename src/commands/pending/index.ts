// `svc pending ls|get|wait|approve|reject|review|log`: the human approval queue for held agent
// transactions, each one as a resource the agent can follow (get, wait, ls --all), and the record
// of what was decided on this machine (log).
import type { Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';
import { helpFooter } from '../../runtime/help-text.js';

export function registerPending(program: Command, deps: ProgramDeps): void {
  const pending = program.command('pending').description('Agent transactions held for human approval');

  pending
    .command('ls')
    .alias('list')
    .description('List held transactions with the time left to act (--all: the history, decided ones included)')
    .option('--decrypt', 'with --json, add amount and memo, decrypted locally')
    .option('--all', 'the history: every held transaction, newest first, approved, rejected and expired ones included (streams)')
    .option('--status <status>', 'the history, only this status: pending_approval, approved, rejected or expired')
    .addHelpText('after', helpFooter([
      '',
      'Without --all or --status: the approval queue (what can still be decided), soonest to expire',
      'first; an agent\'s key has none (exit 3). With them: the history (beyond the spec: a service',
      'without it says so, unsupported_by_service), every page; the owner\'s key sees every agent\'s,',
      'an agent\'s key its own.',
      '',
      'Examples:',
      '  $ svc pending ls',
      '  $ svc pending ls --all',
      '  $ svc --profile bot pending ls --status rejected --json | jq -r \'.[].reason\'',
    ]))
    .action(async (_o, cmd: Command) => {
      const opts = cmd.opts<{ decrypt?: boolean; all?: boolean; status?: string }>();
      if (opts.all || opts.status !== undefined) {
        const { listHistory } = await import('./history.js');
        return listHistory(deps.factory(cmd), opts);
      }
      const { listPending } = await import('./ls.js');
      await listPending(deps.factory(cmd), opts);
    });

  pending
    .command('get <transaction_id>')
    .description("Show one held transaction: its status, who decided and when, the transfer it made (owner's or agent's key)")
    .option('--decrypt', 'with --json, add amount and memo, decrypted locally')
    .addHelpText('after', helpFooter([
      '',
      'The amount and memo are decrypted locally with this profile\'s decryption key (the owner\'s, or',
      'the agent\'s own), and shown as "encrypted" otherwise. Beyond the spec (docs/agents.md): a',
      'service without it says so (unsupported_by_service, exit 1).',
      '',
      'Examples:',
      '  $ svc --profile bot pending get txn_1a2b3c',
      '  $ svc pending get txn_1a2b3c --json | jq -r .status',
    ]))
    .action(async (id: string, _o, cmd: Command) => {
      const { getHeld } = await import('./get.js');
      await getHeld(deps.factory(cmd), id, cmd.opts());
    });

  pending
    .command('wait <transaction_id>')
    .description('Wait until a human approves or rejects a held transaction, or it expires')
    .option('--timeout-wait <duration>', 'give up after this long: a duration such as 90s or 30m; a bare number is seconds (default: until decided or expired)')
    .option('--decrypt', 'with --json, add amount and memo, decrypted locally')
    .addHelpText('after', helpFooter([
      '',
      'Works with the owner\'s key or the agent\'s own. Polls with backoff and rides out network',
      'failures until the decision. On approval the transaction is printed (its transfer_id among it).',
      '',
      'Examples:',
      '  $ svc --profile bot pending wait txn_1a2b3c --timeout-wait 30m',
      '  $ svc --profile bot pending wait txn_1a2b3c --json | jq -r .transfer_id',
      '',
      'Exit codes: 0 approved, 6 rejected (transaction_rejected), 5 expired (transaction_expired),',
      '7 --timeout-wait ran out (wait_timeout), 4 not found, 1 unsupported_by_service, 130 Ctrl-C.',
    ]))
    .action(async (id: string, _o, cmd: Command) => {
      const { waitHeld } = await import('./wait.js');
      await waitHeld(deps.factory(cmd), id, cmd.opts());
    });

  pending
    .command('approve <transaction_id>')
    .description('Approve: the transfer is signed and submitted at once')
    .action(async (id: string, _o, cmd: Command) => {
      const { decide } = await import('./decide.js');
      await decide(deps.factory(cmd), id, 'approve');
    });

  pending
    .command('reject <transaction_id>')
    .description('Reject: the transaction is discarded, no funds move')
    .option('--reason <text>', 'why, kept by the service with the transaction and in your approvals log (1 to 500 characters)')
    .action(async (id: string, opts: { reason?: string }, cmd: Command) => {
      const { decide } = await import('./decide.js');
      await decide(deps.factory(cmd), id, 'reject', opts);
    });

  pending
    .command('review')
    .description('Clear the queue interactively, one transaction at a time (needs a terminal)')
    .option('--watch', 'keep waiting for new held transactions and ring the bell when one arrives')
    .option('--interval <duration>', 'how often to poll with --watch: a duration such as 2s or 500ms; a bare number is seconds', '2s')
    .option('--notify-command <command>', 'run this shell command for each newly held transaction (its id, agent, recipient and deadline in SVC_TRANSACTION_ID, SVC_AGENT, SVC_TO, SVC_EXPIRES_AT; its approvals in SVC_APPROVALS, SVC_APPROVALS_REQUIRED, SVC_APPROVED_BY; never the amount)')
    .action(async (opts: { watch?: boolean; interval: string; notifyCommand?: string }, cmd: Command) => {
      const { review } = await import('./review.js');
      await review(deps.factory(cmd), opts);
    });

  pending
    .command('log')
    .description('The decisions made on this machine (approve, reject, review), newest first; never an amount')
    .option('--limit <n>', 'how many to show (default 20)')
    .action(async (opts: { limit?: string }, cmd: Command) => {
      const { showLog } = await import('./log.js');
      await showLog(deps.factory(cmd), opts);
    });
}
