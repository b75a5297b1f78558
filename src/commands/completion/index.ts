// `svc completion bash|zsh|fish`: prints a completion script generated from this program's
// own command tree. The hidden `svc __complete profiles` feeds the scripts profile names.
import { Argument, type Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';
import { SHELLS } from './shells.js';
import { helpFooter } from '../../runtime/help-text.js';

export function registerCompletion(program: Command, deps: ProgramDeps): void {
  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(SHELLS))
    .addHelpText('after', helpFooter([
      '',
      'Examples:',
      '  $ eval "$(svc completion bash)"                               # bash, add to ~/.bashrc',
      '  $ svc completion zsh > ~/.zsh/completions/_svc                # zsh, a directory in $fpath',
      '  $ svc completion fish > ~/.config/fish/completions/svc.fish   # fish',
      '',
      'See docs/completion.md for permanent installation.',
    ]))
    .action(async (shell: string) => {
      const { printCompletion } = await import('./run.js');
      printCompletion(deps.io, program, shell);
    });

  program
    .command('__complete <what>', { hidden: true })
    .description('Print completion candidates, one per line (used by the completion scripts)')
    .action(async (what: string, _opts, cmd: Command) => {
      const { printCandidates } = await import('./run.js');
      await printCandidates(deps.io, deps.factory(cmd).env, what);
    });
}
