// How a failure reaches the user: one line `error: <message> (<code>[, request <id>])` and an
// optional `hint:` line on stderr, or with --json exactly one `{"error":{...}}` object on stderr.
// On a terminal with colour on, `error:` is red and the hint line dim; never with --json or a pipe.
// Every failure has a code (the service's or ours, docs/exit-codes.md) and one exit code.
import { CommanderError } from 'commander';
import { ApiError, CancelledError, CliError, codeWithReason, ExitCode, SilentExit } from '../errors.js';
import { stderrPaint } from '../io/colors.js';
import { safeJson, sanitize } from '../io/sanitize.js';
import type { IOStreams } from '../io/streams.js';
import { withTarget, type HintTarget } from '../runtime/hint-command.js';

export interface ReportOptions {
  json: boolean;
  verbose: boolean;
  /** The options that chose this run's target: every `svc …` command in a hint carries them. */
  target?: HintTarget;
}

/** Server error messages can be long; a report line stays readable. */
const MAX_MESSAGE = 500;

/** Turns anything thrown into a CliError (an unexpected exception becomes an internal error). */
export function toCliError(err: unknown): CliError {
  if (err instanceof CliError) return err;
  if (err instanceof CommanderError) {
    if (err.code === 'commander.help') {
      // A noun without a verb: commander printed that noun's help on stderr.
      return new CliError('usage', 'usage', 'a command is required (see the list above)');
    }
    const [first, ...rest] = err.message.replace(/^error: /, '').split('\n');
    const suggestion = rest.join(' ').trim().replace(/^\((.*)\)$/, '$1');
    return new CliError('usage', 'usage', first!.trim(), suggestion ? { hint: suggestion.replace(/^Did/, 'did') } : {});
  }
  const name = (err as { name?: string } | null)?.name;
  if (name === 'ExitPromptError' || name === 'AbortPromptError') return new CliError('interrupted', 'interrupted', 'interrupted');
  const e = err as Error | undefined;
  return new CliError('internal', 'internal_error', `unexpected failure: ${e?.message ?? String(err)}`, {
    hint: 'this is a bug in svc; run again with --verbose to see where it happened, and report it',
  });
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}… (${text.length - MAX_MESSAGE} more characters)` : text;
}

/** The JSON error object: code, message, status, request_id, hint, then details; unknown keys omitted. */
export function errorObject(e: CliError): Record<string, unknown> {
  const out: Record<string, unknown> = { code: e.code, message: clip(e.message) };
  if (e instanceof ApiError) {
    out.status = e.status;
    if (e.requestId) out.request_id = e.requestId;
  }
  if (e.hint) out.hint = e.hint;
  for (const [k, v] of Object.entries(e.details)) if (!(k in out) && v !== undefined && v !== null) out[k] = v;
  return out;
}

/** Prints an error and returns its exit code. */
export function reportError(io: IOStreams, err: unknown, opts: ReportOptions): number {
  const raw = toCliError(err);
  if (raw instanceof SilentExit) return raw.exitCode; // the command said it all already
  // The hint is a command that works as typed: with the --profile / --base-url of this run.
  const e = raw.hint && opts.target ? raw.with({ hint: withTarget(raw.hint, opts.target) }) : raw;
  if (opts.json) {
    io.err(`${safeJson({ error: errorObject(e) })}\n`);
  } else if (e instanceof CancelledError) {
    io.err(`${sanitize(e.message)}\n`); // answering No is not an error report
  } else {
    const request = e instanceof ApiError && e.requestId ? `, request ${e.requestId}` : '';
    // Sanitised first, painted after: the only escape codes are ours.
    const paint = stderrPaint(io);
    io.err(`${paint.red('error:')} ${sanitize(clip(e.message))} (${sanitize(codeWithReason(e) + request)})\n`);
    if (e.hint) io.err(`${paint.dim(`hint: ${sanitize(e.hint)}`)}\n`);
  }
  // Where the bug is: the stack's frames only (its head, `TypeError: …`, would be a second error
  // line in another form; the message is on the `error:` line already).
  if (e.kind === 'internal' && opts.verbose && err instanceof Error && err.stack) {
    const frames = err.stack.split('\n').filter((l) => /^\s+at /.test(l));
    if (frames.length) io.err(`stack (--verbose):\n${frames.map(sanitize).join('\n')}\n`);
  }
  return e.exitCode ?? ExitCode.failure;
}
