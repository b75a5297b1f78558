// Entry point: main(argv, ctx) parses, runs one command and returns its exit code. Only the
// bin shim (through run()) touches the process: exit code, signals, stdout errors.
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { buildProgram } from './cli/program.js';
import { reportError, toCliError } from './cli/report.js';
import { realClock, type Clock } from './clock.js';
import { CliError, ExitCode } from './errors.js';
import { shutdown } from './lifecycle.js';
import { terminalPrompter, type Prompter } from './io/prompter.js';
import { createStreams, type StreamOptions } from './io/streams.js';
import { createFactory, type Factory, type GlobalOptions } from './runtime/factory.js';
import type { Interrupt } from './runtime/interrupt.js';
import { hintTarget } from './runtime/hint-command.js';
import { afterCommand } from './runtime/update/notice.js';
import { checkRegistry, UPDATE_CHECK_ARG } from './runtime/update/check.js';

export interface MainContext extends StreamOptions {
  env?: NodeJS.ProcessEnv;
  /** Sandbox-aware time and sleep (tests inject one); default: the real clock. */
  clock?: Clock;
  /** Ctrl-C for commands that stop by themselves (listen, sandbox start); default: none. */
  interrupt?: Interrupt;
  /** Who answers questions (tests inject a scripted one); default: the terminal. */
  prompter?: Prompter;
  /**
   * Certificate authorities (PEM) the HTTP client trusts instead of Node's: tests serving https on
   * loopback with their own certificate. Only a caller of main() sets it (run() never does): no
   * flag or environment variable can.
   */
  trustedCa?: string;
  /**
   * Starts the update check in the background (src/runtime/update/): run() starts a detached
   * process; tests run it in-process. Without it no check is started (a stored result still shows).
   */
  launchUpdateCheck?: () => void;
  /** Where the running code is installed (picks the upgrade command); default: this module's path. */
  modulePath?: string;
}

/** Flags read before commander runs (it may fail before it parses them). */
function globalFlag(argv: readonly string[], flag: string): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes(flag);
}

export async function main(argv: readonly string[], ctx: MainContext = {}): Promise<number> {
  const env = ctx.env ?? process.env;
  const json = globalFlag(argv, '--json');
  const io = createStreams({ ...ctx, env, noColor: globalFlag(argv, '--no-color'), noInput: globalFlag(argv, '--no-input') });
  let factory: Factory | undefined;
  // commander's own error text (and the help it prints with it) is replaced by our report.
  const commanderErr: string[] = [];
  const program = buildProgram({
    factory: (cmd: Command) => (factory ??= createFactory({
      io, env, globals: cmd.optsWithGlobals(), clock: ctx.clock ?? realClock, prompter: ctx.prompter ?? terminalPrompter(io), interrupt: ctx.interrupt,
      trustedCa: ctx.trustedCa,
    })),
    io,
    writeErr: (s) => (json ? commanderErr.push(s) : io.err(s)),
  }, argv);
  let code: number;
  try {
    await program.parseAsync([...argv], { from: 'user' });
    code = ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.version')) code = ExitCode.ok;
    else {
      // Before the command ran (a usage error), the root's options parsed so far choose the target.
      const globals = factory?.globals ?? (program.opts() as GlobalOptions);
      code = reportError(io, err, {
        json: factory?.json ?? json, verbose: Boolean(globals.verbose) || globalFlag(argv, '--verbose'),
        target: hintTarget(env, globals),
      });
    }
  }
  // After the command's own output: a stored update notice, and (once a day) the next check, not waited for.
  afterCommand({
    env, io, clock: ctx.clock ?? realClock, json: factory?.json ?? json,
    modulePath: ctx.modulePath ?? fileURLToPath(import.meta.url),
    ...(ctx.launchUpdateCheck ? { launchCheck: ctx.launchUpdateCheck } : {}),
  });
  return code;
}

/** The registry check in a process of its own: detached, no stdio, not waited for. */
function launchDetachedCheck(): void {
  const script = process.argv[1];
  if (!script) return;
  // Loaded here, not at the top: node:child_process (and node:dgram behind it) cost every start ~7 ms.
  const { spawn } = process.getBuiltinModule('node:child_process');
  const child = spawn(process.execPath, [script, UPDATE_CHECK_ARG], { detached: true, stdio: 'ignore', env: process.env });
  child.on('error', () => {});
  child.unref();
}

/**
 * A failure run() reports itself (a signal before the command could say it, a bug outside any
 * command's reach): in the one form of main's report (`error: … (code)`, or the JSON object with
 * --json), never Node's own `Error: …` or a bare word (docs/ux.md "Errors").
 */
function reportOutside(argv: readonly string[], err: unknown): number {
  const io = createStreams({ noColor: globalFlag(argv, '--no-color'), noInput: true });
  return reportError(io, err, { json: globalFlag(argv, '--json'), verbose: globalFlag(argv, '--verbose') });
}

/** Used by bin/svc.js: wires the process (signals, stdout errors, a crash) to main(). */
export async function run(argv: readonly string[]): Promise<number> {
  if (argv.length === 1 && argv[0] === UPDATE_CHECK_ARG) {
    await checkRegistry(process.env);
    return ExitCode.ok;
  }
  const controller = new AbortController();
  let handled = false;
  const interrupt: Interrupt = {
    signal: controller.signal,
    handle: () => void (handled = true),
  };
  const onSignal = (sig: NodeJS.Signals) => {
    // A command that stops by itself on Ctrl-C (the sandbox, webhook listen) owns the shutdown.
    if (handled) return controller.abort(sig);
    if (process.stderr.isTTY && !globalFlag(argv, '--json')) process.stderr.write('\n'); // off the line ^C was echoed on
    reportOutside(argv, new CliError('interrupted', 'interrupted', 'interrupted'));
    process.exit(sig === 'SIGINT' ? ExitCode.interrupted : 143);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A bug that escapes every command (a callback's throw, a promise nobody awaited): said as a
  // bug in svc (exit 70), not in Node's words.
  const onCrash = (err: unknown) => process.exit(reportOutside(argv, toCliError(err)));
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  let readerGone = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    // A reader that goes away (`svc transfer ls | head`) is not an error. A command that owns its
    // shutdown (webhook listen deletes its subscription) is stopped as by Ctrl-C, then exits 0.
    if (err.code === 'EPIPE') {
      readerGone = true;
      if (handled) return controller.abort('EPIPE');
      process.exit(ExitCode.ok);
    }
    reportOutside(argv, new CliError('failure', 'output_error', `cannot write to stdout: ${err.code ?? err.message}`));
    process.exit(ExitCode.failure);
  });
  try {
    const code = await main(argv, { interrupt, launchUpdateCheck: launchDetachedCheck });
    // Stopped because the reader went away: that is the end the pipe asked for, not an interrupt.
    return readerGone && code === ExitCode.interrupted ? ExitCode.ok : code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // Close idle keep-alive connections now rather than waiting for them to time out.
    await shutdown();
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
  }
}
