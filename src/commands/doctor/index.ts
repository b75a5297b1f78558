// `svc doctor`: why something does not work, one check per line (docs/doctor.md).
import type { Command } from 'commander';
import type { ProgramDeps } from '../../runtime/registration.js';
import { helpFooter } from '../../runtime/help-text.js';

export function registerDoctor(program: Command, deps: ProgramDeps): void {
  program
    .command('doctor')
    .description('Check the set-up: config permissions, profile, key, network, TLS, proxy, clock, decryption key')
    .addHelpText('after', helpFooter([
      '',
      'Each check prints ✓ (passed), ! (a warning), ✗ (failed, with a fix) or - (skipped: an earlier',
      'check it needs failed). Exit 0 when no check failed, 1 otherwise. Sends the key only to the',
      "profile's base URL, like any command; --profile, --base-url and --timeout apply.",
      '',
      'Examples:',
      '  $ svc doctor',
      '  $ svc --profile work doctor',
      "  $ svc doctor --json | jq -r '.checks[] | select(.status == \"fail\") | .fix'",
    ]))
    .action(async (_opts, cmd: Command) => {
      const { runDoctor } = await import('./run.js');
      await runDoctor(deps.factory(cmd));
    });
}
