// `svc pending ls|approve|reject|review`: the human approval queue for held agent transactions.
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
    .action(async (id: string, _o, cmd: Command) => {
      const { decide } = await import('./decide.js');
      await decide(deps.factory(cmd), id, 'reject');
    });

  pending
    .command('review')
    .description('Clear the queue interactively, one transaction at a time (needs a terminal)')
    .option('--watch', 'keep waiting for new held transactions and ring the bell when one arrives')
    .option('--interval <duration>', 'how often to poll with --watch: a duration such as 2s or 500ms (a bare number is milliseconds)', '2s')
    .action(async (opts: { watch?: boolean; interval: string }, cmd: Command) => {
      const { review } = await import('./review.js');
      await review(deps.factory(cmd), opts);
    });
}
