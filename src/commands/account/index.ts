// `svc account`: the authenticated account.
import type { Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';
import { helpFooter } from '../../runtime/help-text.js';

export function registerAccount(program: Command, deps: ProgramDeps): void {
  program
    .command('account')
    .description('Show the account the current key belongs to')
    .addHelpText('after', helpFooter(['', 'Examples:', '  $ svc account', '  $ svc account --json | jq -r .handle']))
    .action(async (_opts, cmd: Command) => {
      const { showAccount } = await import('./show.js');
      await showAccount(deps.factory(cmd));
    });
}
