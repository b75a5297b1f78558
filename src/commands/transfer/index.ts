import type { Command } from 'commander';
import type { ProgramDeps } from '../../cli/program.js';

export function registerTransfer(_program: Command, _deps: ProgramDeps): void {
  // TODO(owner): register the `svc transfer` commands here.
}
