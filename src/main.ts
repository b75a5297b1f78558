// Entry point: main(argv, ctx) parses, runs one command and returns its exit code.
// It never calls process.exit; only bin/svc.js sets process.exitCode.
import { Command, CommanderError } from 'commander';
import { App } from './app.js';
import { buildProgram } from './cli/program.js';
import { ApiError, CliError, ExitCode, exitCodeFor } from './errors.js';
import { shutdown } from './lifecycle.js';
import { createStreams, type IOStreams, type StreamOptions } from './io/streams.js';

export interface MainContext extends StreamOptions {
  env?: NodeJS.ProcessEnv;
}

function wantsNoColor(argv: readonly string[]): boolean {
  return argv.includes('--no-color');
}
function wantsNoInput(argv: readonly string[]): boolean {
  return argv.includes('--no-input');
}

export async function main(argv: readonly string[], ctx: MainContext = {}): Promise<number> {
  const env = ctx.env ?? process.env;
  const io = createStreams({ ...ctx, env, noColor: wantsNoColor(argv), noInput: wantsNoInput(argv) });
  let app: App | undefined;
  const program = buildProgram({
    app: (cmd: Command) => (app ??= new App(io, env, cmd.optsWithGlobals())),
    io,
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return app?.exitCode ?? 0;
  } catch (err) {
    return reportError(io, err, Boolean(app?.globals.verbose));
  }
}

/** Prints an error as one line (plus a hint line) on stderr and returns its exit code. */
export function reportError(io: IOStreams, err: unknown, verbose: boolean): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
    // Commander already printed its message through configureOutput.
    return ExitCode.usage;
  }
  const name = (err as { name?: string } | null)?.name;
  if (name === 'ExitPromptError' || name === 'AbortPromptError') {
    io.err('cancelled\n');
    return ExitCode.interrupted;
  }
  if (err instanceof CliError) {
    const api = err instanceof ApiError ? err : undefined;
    const reason = typeof api?.details.reason === 'string' ? ` [${api.details.reason}]` : '';
    io.err(`error: ${err.message}${reason}${api?.requestId ? ` (request ${api.requestId})` : ''}\n`);
    if (err.hint) io.err(`hint: ${err.hint}\n`);
    return exitCodeFor(err);
  }
  const e = err as Error;
  io.err(`error: unexpected failure: ${e?.message ?? String(err)}\n`);
  if (verbose && e?.stack) io.err(`${e.stack}\n`);
  return ExitCode.apiError;
}

/** Used by bin/svc.js. */
export async function run(argv: readonly string[]): Promise<number> {
  const onSigint = () => {
    // A command that handles Ctrl-C itself (the sandbox, webhook listen) owns the shutdown.
    if (process.listenerCount('SIGINT') > 0) return;
    process.stderr.write('\ninterrupted\n');
    process.exit(ExitCode.interrupted);
  };
  process.once('SIGINT', onSigint);
  // A reader that goes away (`svc transfer ls | head`) is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  try {
    return await main(argv);
  } finally {
    process.off('SIGINT', onSigint);
    // Close idle keep-alive connections now rather than waiting for them to time out.
    await shutdown();
  }
}
