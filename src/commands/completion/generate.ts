// program → completion script: a pure function, so tests can render any commander program.
import type { Command } from 'commander';
import { renderBash } from './bash.js';
import { renderFish } from './fish.js';
import { describeProgram } from './model.js';
import { renderZsh } from './zsh.js';

import type { Shell } from './shells.js';

export { SHELLS, isShell, type Shell } from './shells.js';

/** The completion script for a shell, generated from the program's command tree. */
export function generateCompletion(program: Command, shell: Shell): string {
  const spec = describeProgram(program);
  switch (shell) {
    case 'bash':
      return renderBash(spec);
    case 'zsh':
      return renderZsh(spec);
    case 'fish':
      return renderFish(spec);
  }
}
