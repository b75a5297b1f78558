// `svc pending ls|approve|reject|review|log`: the human approval queue for held agent transactions,
// and the record of what was decided on this machine.
import type { Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';

export function registerPending(program: Command, deps: ProgramDeps): void {
  const pending = program.command('pending').description('Agent transactions held for human approval');

  pending
    .command('ls')
    .alias('list')
    .description('List held transactions with the time left to act')
    .option('--decrypt', 'with --json, add amount and memo, decrypted locally')
    .action(async (_o, cmd: Command) => {
      const { listPending } = await import('./ls.js');
      await listPending(deps.factory(cmd), cmd.opts());
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
    .option('--interval <duration>', 'how often to poll with --watch: a duration such as 2s or 500ms (a bare number is milliseconds)', '2s')
    .option('--notify-command <command>', 'run this shell command for each newly held transaction (its id, agent, recipient and deadline in SVC_TRANSACTION_ID, SVC_AGENT, SVC_TO, SVC_EXPIRES_AT; never the amount)')
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
