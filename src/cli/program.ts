// The commander program: global options and one registration module per noun.
// Registration is cheap; each command's logic is imported only when it runs.
import { Command, Option } from 'commander';
import type { App } from '../app.js';
import type { IOStreams } from '../io/streams.js';
import { registerAccount } from '../commands/account/index.js';
import { registerAgent } from '../commands/agent/index.js';
import { registerApi } from '../commands/api/index.js';
import { registerBalance } from '../commands/balance/index.js';
import { registerCompletion } from '../commands/completion/index.js';
import { registerPending } from '../commands/pending/index.js';
import { registerProfile } from '../commands/profile/index.js';
import { registerSandbox } from '../commands/sandbox/index.js';
import { registerTransfer } from '../commands/transfer/index.js';
import { registerWebhook } from '../commands/webhook/index.js';

export interface ProgramDeps {
  /** Builds (once) the App for the command being run. */
  app: (cmd: Command) => App;
  io: IOStreams;
}

export const VERSION = '0.1.0';

export function buildProgram(deps: ProgramDeps): Command {
  const program = new Command('svc')
    .description('Accounts, confidential transfers and agent approvals from the terminal')
    .version(VERSION, '-V, --version')
    .option('-p, --profile <name>', 'profile to use (env SVC_PROFILE)')
    .option('--base-url <url>', 'service base URL (env SVC_BASE_URL)')
    .option('--json', 'print exactly one JSON document on stdout')
    .option('-y, --yes', 'confirm without prompting (required for live money movement without a TTY)')
    .option('--no-input', 'never prompt; fail instead when input would be needed')
    .option('--no-color', 'disable colour (also NO_COLOR)')
    .option('-v, --verbose', 'print each HTTP request and response line to stderr (keys masked)')
    .addOption(new Option('--timeout <ms>', 'request timeout in milliseconds').default(undefined, '30000'))
    .showSuggestionAfterError(true)
    .enablePositionalOptions(false);
  configure(program, deps.io);

  registerProfile(program, deps);
  registerAccount(program, deps);
  registerBalance(program, deps);
  registerTransfer(program, deps);
  registerAgent(program, deps);
  registerPending(program, deps);
  registerWebhook(program, deps);
  registerApi(program, deps);
  registerSandbox(program, deps);
  registerCompletion(program, deps);

  for (const cmd of allCommands(program)) configure(cmd, deps.io);
  return program;
}

/** Every command applies the root's output and exit settings (commander does not inherit them). */
function configure(cmd: Command, io: IOStreams): void {
  cmd.exitOverride();
  cmd.configureOutput({
    writeOut: (s) => io.out(s),
    writeErr: (s) => io.err(s),
    outputError: (s, write) => write(s),
  });
}

export function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}
