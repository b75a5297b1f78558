import type { Command } from 'commander';
import type { ProgramDeps } from '../../cli/program.js';

export function registerSandbox(_program: Command, _deps: ProgramDeps): void {
  // TODO(owner): register the `svc sandbox` commands here.
}
