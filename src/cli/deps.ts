// What each noun's registration gets from the program (kept apart so commands never import it).
import type { Command } from 'commander';
import type { App } from '../app.js';
import type { IOStreams } from '../io/streams.js';

export interface ProgramDeps {
  /** Builds (once) the App for the command being run. */
  app: (cmd: Command) => App;
  io: IOStreams;
  /** Where commander's own error output goes (held back with --json: the report replaces it). */
  writeErr?: (text: string) => void;
}
