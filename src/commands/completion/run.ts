// The logic of `svc completion <shell>` and of the hidden `svc __complete <what>`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { IOStreams } from '../../io/streams.js';
import { UsageError } from '../../errors.js';
import { isSafe } from '../../io/sanitize.js';
import { generateCompletion, isShell, SHELLS } from './generate.js';

export function printCompletion(io: IOStreams, program: Command, shell: string): void {
  if (!isShell(shell)) throw new UsageError(`unknown shell "${shell}": use ${SHELLS.join(', ')}`);
  io.out(generateCompletion(program, shell));
}

/**
 * Prints candidates one per line for the shell scripts. Never fails loudly: a broken or
 * missing config just means nothing to suggest. Does not create the config directory.
 */
export async function printCandidates(io: IOStreams, env: NodeJS.ProcessEnv, what: string): Promise<void> {
  if (what !== 'profiles') return;
  try {
    const { configDir } = await import('../../config/paths.js');
    const dir = configDir(env);
    if (!existsSync(join(dir, 'config.json'))) return;
    const { readProfiles } = await import('../../config/profile-file.js');
    const names = readProfiles(dir).names();
    // Names come from the config file, which may have been edited by hand: one name a line, as
    // it is, so the shell offers the word itself; a name holding a control character (a newline
    // would make two words of it, an escape would reach the terminal) is left out, not altered.
    const offered = names.filter(isSafe);
    if (offered.length) io.out(`${offered.join('\n')}\n`);
  } catch {
    // nothing to suggest
  }
}
