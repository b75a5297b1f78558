// The commander program: global options and one registration module per noun.
// Registration is cheap; each command's logic is imported only when it runs.
import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import type { IOStreams } from '../io/streams.js';
import type { ProgramDeps } from '../runtime/registration.js';
import { VERSION } from '../version.js';
import { HELP_WIDTH, helpFooter } from '../runtime/help-text.js';
import { findTopic, HELP_TOPICS } from './help-topics.js';
import { commandWord } from './command-word.js';
import { explainUsage } from './usage-mistakes.js';
import { registerAccount } from '../commands/account/index.js';
import { registerAgent } from '../commands/agent/index.js';
import { registerApi } from '../commands/api/index.js';
import { registerBalance } from '../commands/balance/index.js';
import { registerCompletion } from '../commands/completion/index.js';
import { registerDoctor } from '../commands/doctor/index.js';
import { registerMcp } from '../commands/mcp/index.js';
import { registerPending } from '../commands/pending/index.js';
import { registerProfile } from '../commands/profile/index.js';
import { registerSandbox } from '../commands/sandbox/index.js';
import { registerTransfer } from '../commands/transfer/index.js';
import { registerWebhook } from '../commands/webhook/index.js';

export type { ProgramDeps } from '../runtime/registration.js';

/** The top-level commands, in the order the help lists them. */
const NOUNS: Record<string, (program: Command, deps: ProgramDeps) => void> = {
  profile: registerProfile,
  account: registerAccount,
  balance: registerBalance,
  transfer: registerTransfer,
  agent: registerAgent,
  pending: registerPending,
  webhook: registerWebhook,
  api: registerApi,
  sandbox: registerSandbox,
  completion: registerCompletion,
  doctor: registerDoctor,
  mcp: registerMcp,
};
/** Commands that print something made from the whole program (a completion script of every command). */
const READS_PROGRAM = new Set(['completion']);

/**
 * The program. With `argv`, a command line that plainly names one top-level command gets only
 * that command (command-word.ts): the others are never run, so never defined.
 */
export function buildProgram(deps: ProgramDeps, argv?: readonly string[]): Command {
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
    .addOption(new Option('--timeout <duration>', 'the most time spent on the network, retries included: a duration such as 30s or 2m; a bare number is seconds (default 30s)').default(undefined, '30s'))
    .showSuggestionAfterError(true)
    .enablePositionalOptions(false)
    .helpCommand(false);

  const only = argv === undefined ? undefined : commandWord(argv);
  const register = only !== undefined && Object.hasOwn(NOUNS, only) && !READS_PROGRAM.has(only) ? [NOUNS[only]!] : Object.values(NOUNS);
  for (const noun of register) noun(program, deps);
  if (register.length > 1) {
    registerHelp(program);
    registerManPage(program, deps.io);
  }
  program.addHelpText('after', helpFooter(GET_STARTED));

  for (const cmd of [program, ...allCommands(program)]) configure(cmd, deps.io, deps.writeErr);
  return program;
}

/**
 * Every command applies the root's output and exit settings (commander does not inherit them).
 * Commander's own error line is dropped: main's report prints every failure in one format.
 * A usage error's hint is the next step (usage-mistakes.ts).
 */
function configure(cmd: Command, io: IOStreams, writeErr?: (s: string) => void): void {
  // Commander's error, or a sharper one for the commonest mistakes (usage-mistakes.ts).
  cmd.exitOverride((err) => {
    throw explainUsage(cmd, err);
  });
  cmd.configureOutput({
    writeOut: (s) => io.out(s),
    writeErr: writeErr ?? ((s) => io.err(s)),
    outputError: () => {},
    // Help fits the terminal it goes to; anywhere else (a pipe, a file, a pager) 80 columns.
    getOutHelpWidth: () => (io.stdoutIsTTY ? io.columns : HELP_WIDTH),
    getErrHelpWidth: () => (io.stderrIsTTY ? io.errColumns() : HELP_WIDTH),
  });
}

/** The top-level help's footer: a first session, and where the rest of the manual is. */
const GET_STARTED = [
  '',
  'Get started with the local sandbox (test accounts, no real money):',
  '  $ svc sandbox start   # in a second terminal: seeds @alice, @acme and @bob',
  '  $ svc account',
  '  $ svc transfer send @acme 1 --wait',
  '  $ svc transfer ls',
  '',
  `Help topics: ${HELP_TOPICS.map((t) => `svc help ${t.name}`).join(', ')}. Manual: man svc.`,
  'Guides: the docs/ folder of the installed package (docs/sandbox.md first).',
];

/** `svc help [noun [verb]]`: the help of the deepest command the words name; or a help topic. */
function registerHelp(program: Command): void {
  const topics = HELP_TOPICS.map((t) => t.name).join(', ');
  program
    .command('help [command...]')
    .description(`Show help for a command (e.g. \`svc help transfer send\`) or a topic: ${topics}`)
    .action((words: string[], _opts, self: Command) => {
      const topic = words.length === 1 ? findTopic(words[0]!) : undefined;
      if (topic) {
        const width = self.configureOutput().getOutHelpWidth?.() ?? HELP_WIDTH;
        self.configureOutput().writeOut?.(`${topic.render(width)}\n`);
        return;
      }
      let cmd = program;
      for (const word of words) {
        const next = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!next) {
          if (cmd === program) throw new UsageError(`unknown command or help topic "${word}" (topics: ${topics})`, 'see `svc --help` for the commands', 'usage');
          throw new UsageError(`unknown command "${commandPath(cmd)} ${word}"`, `see \`${commandPath(cmd)} --help\``, 'usage');
        }
        cmd = next;
      }
      cmd.outputHelp();
    });
}

/** The hidden `svc __man`: prints the man page (scripts/gen-man.mjs writes man/svc.1 with it). */
function registerManPage(program: Command, io: IOStreams): void {
  program
    .command('__man', { hidden: true })
    .description('Print the man page (roff), generated from this program')
    .action(async () => {
      const { generateManPage } = await import('./man-page.js');
      io.out(generateManPage(program));
    });
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}
