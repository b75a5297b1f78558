import type { Command } from 'commander';
import type { ProgramDeps } from '../../cli/program.js';

export function registerCompletion(_program: Command, _deps: ProgramDeps): void {
  // TODO(owner): register the `svc completion` commands here.
}
