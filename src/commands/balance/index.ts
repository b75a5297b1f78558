// `svc balance`: balances decrypted locally with the profile's decryption key.
import type { Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';
import { helpFooter } from '../../runtime/help-text.js';

export function registerBalance(program: Command, deps: ProgramDeps): void {
  program
    .command('balance')
    .description('Show balances, decrypted locally (the service never sees your decryption key)')
    .option('--asset <asset>', 'only this asset')
    .option('--verify', 'also send a decryption proof and check the service agrees with the local result')
    .addHelpText('after', helpFooter(['', 'Examples:', '  $ svc balance', '  $ svc balance --asset USDG --json', '  $ svc balance --verify']))
    .action(async (opts: { asset?: string; verify?: boolean }, cmd: Command) => {
      const { showBalance } = await import('./show.js');
      await showBalance(deps.factory(cmd), opts);
    });
}
