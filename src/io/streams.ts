// One object that knows, per stream, whether it is a terminal, whether colour is on and
// whether we may prompt. Commands write through it so tests can use buffers.
import type { Readable, Writable } from 'node:stream';

export interface IOStreams {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  /** Colour on stderr/stdout (TTY, no NO_COLOR, no --no-color). */
  readonly color: boolean;
  /** Prompts allowed: stdin and stdout are terminals and --no-input was not given. */
  readonly canPrompt: boolean;
  /** Width tables fit in: the terminal's columns on stdout, else $COLUMNS, else 80. */
  readonly columns: number;
  out(text: string): void;
  err(text: string): void;
}

export interface StreamOptions {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  env?: NodeJS.ProcessEnv;
  noColor?: boolean;
  noInput?: boolean;
  /** Override TTY detection (tests). */
  tty?: { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  /** Override the terminal width (tests). */
  columns?: number;
}

export const DEFAULT_COLUMNS = 80;

function widthOf(stream: unknown, env: NodeJS.ProcessEnv): number {
  const cols = (stream as { columns?: number } | undefined)?.columns;
  if (typeof cols === 'number' && cols > 0) return cols;
  const fromEnv = Number(env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_COLUMNS;
}

function isTTY(stream: unknown): boolean {
  return Boolean((stream as { isTTY?: boolean } | undefined)?.isTTY);
}

export function createStreams(opts: StreamOptions = {}): IOStreams {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  const env = opts.env ?? process.env;
  const stdinIsTTY = opts.tty?.stdin ?? isTTY(stdin);
  const stdoutIsTTY = opts.tty?.stdout ?? isTTY(stdout);
  const stderrIsTTY = opts.tty?.stderr ?? isTTY(stderr);
  const noColorEnv = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  const color = !opts.noColor && !noColorEnv && env.TERM !== 'dumb' && (stdoutIsTTY || stderrIsTTY);
  return {
    stdin,
    stdout,
    stderr,
    stdinIsTTY,
    stdoutIsTTY,
    stderrIsTTY,
    color,
    canPrompt: !opts.noInput && stdinIsTTY && stdoutIsTTY && env.CI !== 'true',
    columns: opts.columns ?? widthOf(stdout, env),
    out: (text) => void stdout.write(text),
    err: (text) => void stderr.write(text),
  };
}
