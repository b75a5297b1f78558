// The one writer of status lines on stderr (`reconnecting… next try in 4s`, the spinners of the
// waits, batch progress): docs/ux.md, Status lines. On a terminal the line is cut to the width of
// stderr's terminal (status-fit.ts) and replaced in place (io.status: other output steps over it),
// and drawn again when the terminal is resized; a line wider than the terminal would wrap, and
// `\r` + clear-line would then clear only its last row, leaving a row behind at every redraw.
// Elsewhere (a pipe, a file) it is printed as a line of its own each time it changes. Sanitised
// here: it often quotes the service.
import { sanitize } from './sanitize.js';
import { fitStatus } from './status-fit.js';
import type { IOStreams } from './streams.js';
import { textWidth } from './table.js';

/** What a status line shows: a text, or a text made for a width (a progress bar fills it). */
export type StatusText = string | ((columns: number) => string);

export interface StatusLine {
  /**
   * Shows `text` in place of what the line showed. `prefix` (a spinner's frame) is drawn before
   * it on a terminal only, never cut.
   */
  show(text: StatusText, prefix?: string): void;
  /** Removes the line (on a terminal); the next output starts on a clean line. */
  clear(): void;
  /** Whether something is shown. */
  readonly shown: boolean;
}

export function statusLine(io: IOStreams): StatusLine {
  let current: { text: StatusText; prefix: string } | undefined;
  let printed: string | undefined; // without a terminal: the last line printed
  const draw = () => {
    if (!current) return;
    // The last column stays empty: a terminal that wraps as soon as it is written would scroll.
    const columns = Math.max(1, io.errColumns() - 1 - textWidth(current.prefix));
    const text = typeof current.text === 'string' ? current.text : current.text(columns);
    io.status(`${current.prefix}${fitStatus(sanitize(text), columns)}`);
  };
  const onResize = () => draw();
  return {
    show(text, prefix = '') {
      if (!io.stderrIsTTY) {
        const safe = sanitize(typeof text === 'string' ? text : text(io.errColumns()));
        if (safe !== printed) io.err(`${safe}\n`);
        printed = safe;
        current = { text, prefix: '' };
        return;
      }
      if (current && typeof text === 'string' && text === current.text && prefix === current.prefix) return;
      if (!current) io.stderr.on('resize', onResize);
      current = { text, prefix };
      draw();
    },
    clear() {
      if (current && io.stderrIsTTY) {
        io.stderr.off('resize', onResize);
        io.status(undefined);
      }
      current = undefined;
      printed = undefined;
    },
    get shown() {
      return current !== undefined;
    },
  };
}
