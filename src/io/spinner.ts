// A small stderr spinner with no dependency. It animates only when stderr is a terminal, on the
// one status line (status-line.ts: cut to the terminal's width, redrawn in place); otherwise it
// prints its text once as a plain line (or nothing with `quiet`), so logs of scripts and CI jobs
// stay readable. Every text it shows is sanitised (it often carries an id or a status from the
// service), so a caller cannot forget it: texts are plain, a colour code in one would be shown
// escaped.
import { sanitize } from './sanitize.js';
import { statusLine } from './status-line.js';
import type { IOStreams } from './streams.js';

export interface Spinner {
  /** Replaces the text shown next to the spinner. */
  update(text: string): void;
  /** Stops and clears the spinner line; prints `finalLine` (on stderr) when given. */
  stop(finalLine?: string): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const ASCII_FRAMES = ['|', '/', '-', '\\'];
const INTERVAL_MS = 80;
const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';

export interface SpinnerOptions {
  /** Without a terminal, print nothing at all (default: print the text once). */
  quiet?: boolean;
  /** Use ASCII frames (default: when TERM is dumb or linux console). */
  ascii?: boolean;
  env?: NodeJS.ProcessEnv;
}

export function startSpinner(io: IOStreams, rawText: string, opts: SpinnerOptions = {}): Spinner {
  if (!io.stderrIsTTY) {
    if (!opts.quiet) io.err(`${sanitize(rawText)}\n`);
    return {
      update: () => {},
      stop: (finalLine) => {
        if (finalLine) io.err(`${sanitize(finalLine)}\n`);
      },
    };
  }
  const env = opts.env ?? process.env;
  const frames = opts.ascii || env.TERM === 'linux' || env.TERM === 'dumb' ? ASCII_FRAMES : FRAMES;
  const line = statusLine(io);
  let current = rawText;
  let i = 0;
  let stopped = false;
  const draw = () => line.show(current, `${frames[i++ % frames.length]} `);
  // Restore the cursor if the process ends while the spinner runs (Ctrl-C, an uncaught error).
  const restore = () => {
    if (stopped) return;
    line.clear();
    io.err(SHOW_CURSOR);
  };
  process.once('exit', restore);
  io.err(HIDE_CURSOR);
  draw();
  const timer = setInterval(draw, INTERVAL_MS);
  timer.unref();
  return {
    update(next) {
      current = next; // drawn at the next frame
    },
    stop(finalLine) {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      process.off('exit', restore);
      line.clear();
      io.err(`${SHOW_CURSOR}${finalLine ? `${sanitize(finalLine)}\n` : ''}`);
    },
  };
}
