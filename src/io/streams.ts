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
  /**
   * Width status lines fit in (spinners, progress, `reconnecting…`): stderr's columns as they are
   * now (the terminal may have been resized since the start), else $COLUMNS, else 80.
   */
  errColumns(): number;
  out(text: string): void;
  err(text: string): void;
  /**
   * The status line at the bottom of stderr's terminal (status-line.ts draws it, fitted to the
   * width), or undefined to remove it. While one is shown, out() and err() on a terminal clear it
   * first and draw it again under a whole line, so a message or a table page never lands on its
   * row, nor is wiped by its next redraw. Nothing without a terminal on stderr.
   */
  status(line: string | undefined): void;
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
  /** Override the terminal width, of stdout and stderr (tests). */
  columns?: number;
}

export const DEFAULT_COLUMNS = 80;

function widthOf(stream: unknown, env: NodeJS.ProcessEnv): number {
  const cols = (stream as { columns?: number } | undefined)?.columns;
  if (typeof cols === 'number' && cols > 0) return cols;
  const fromEnv = Number(env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_COLUMNS;
}

const CLEAR_LINE = '\r\u001b[2K';

/** out(), err() and status() for a terminal on stderr that a status line may occupy. */
function statusAware(stdout: Writable, stderr: Writable, stdoutIsTTY: boolean, stderrIsTTY: boolean) {
  let shown: string | undefined;
  // A partial line was written over it: it is drawn again on the next row, at its next change.
  let lifted = false;
  const write = (stream: Writable, onTerminal: boolean, text: string) => {
    if (shown === undefined || !onTerminal) return void stream.write(text);
    if (!lifted) stderr.write(CLEAR_LINE);
    stream.write(text);
    lifted = !text.endsWith('\n');
    if (!lifted) stderr.write(shown);
  };
  return {
    out: (text: string) => write(stdout, stdoutIsTTY, text),
    err: (text: string) => write(stderr, stderrIsTTY, text),
    status(line: string | undefined) {
      if (!stderrIsTTY) return;
      if (line !== undefined) stderr.write(`${lifted ? '\n' : CLEAR_LINE}${line}`);
      else if (shown !== undefined && !lifted) stderr.write(CLEAR_LINE);
      shown = line;
      lifted = false;
    },
  };
}

function isTTY(stream: unknown): boolean {
  return Boolean((stream as { isTTY?: boolean } | undefined)?.isTTY);
}

export function createStreams(opts: StreamOptions = {}): IOStreams {
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  const env = opts.env ?? process.env;
  // process.stdin is made on first use, and only by a command that reads it: made from a file or
  // /dev/null it is an fs.ReadStream, which loads fs's streams, fs/promises and readline (15 of
  // Node's modules) for a command that never reads. Whether it is a terminal is asked of the file
  // descriptor, and only when a command wants to know (node:tty loads node:net).
  let stdinTTY: boolean | undefined;
  const stdinIsTTY = () => (stdinTTY ??= opts.tty?.stdin ?? (opts.stdin ? isTTY(opts.stdin) : process.getBuiltinModule('node:tty').isatty(0)));
  const stdoutIsTTY = opts.tty?.stdout ?? isTTY(stdout);
  const stderrIsTTY = opts.tty?.stderr ?? isTTY(stderr);
  const noColorEnv = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  const color = !opts.noColor && !noColorEnv && env.TERM !== 'dumb' && (stdoutIsTTY || stderrIsTTY);
  return {
    get stdin() {
      return opts.stdin ?? process.stdin;
    },
    stdout,
    stderr,
    get stdinIsTTY() {
      return stdinIsTTY();
    },
    stdoutIsTTY,
    stderrIsTTY,
    color,
    get canPrompt() {
      return !opts.noInput && stdoutIsTTY && env.CI !== 'true' && stdinIsTTY();
    },
    columns: opts.columns ?? widthOf(stdout, env),
    errColumns: () => opts.columns ?? widthOf(stderr, env),
    ...statusAware(stdout, stderr, stdoutIsTTY, stderrIsTTY),
  };
}
