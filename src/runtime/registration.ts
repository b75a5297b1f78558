// What each noun's registration gets from the program: kept below the commands, so commands
// never import the program that imports them.
import type { Command } from 'commander';
import type { IOStreams } from '../io/streams.js';
import type { Factory } from './factory.js';

export interface ProgramDeps {
  /** Builds (once) what the command being run works with. */
  factory: (cmd: Command) => Factory;
  io: IOStreams;
  /** Where commander's own error output goes (held back with --json: the report replaces it). */
  writeErr?: (text: string) => void;
}
