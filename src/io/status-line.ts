// One line of status on stderr that is replaced in place on a terminal (`reconnecting… next try
// in 4s`), and printed as a line of its own each time it changes elsewhere. Sanitised here: it
// often quotes the service.
import { sanitize } from './sanitize.js';
import type { IOStreams } from './streams.js';

const CLEAR_LINE = '\r\u001b[2K';

export interface StatusLine {
  /** Shows `text` in place of what the line showed. */
  show(text: string): void;
  /** Removes the line (on a terminal); the next output starts on a clean line. */
  clear(): void;
  /** Whether something is shown. */
  readonly shown: boolean;
}

export function statusLine(io: IOStreams): StatusLine {
  let current: string | undefined;
  return {
    show(text) {
      const safe = sanitize(text);
      if (safe === current) return;
      current = safe;
      io.err(io.stderrIsTTY ? `${CLEAR_LINE}${safe}` : `${safe}\n`);
    },
    clear() {
      if (current !== undefined && io.stderrIsTTY) io.err(CLEAR_LINE);
      current = undefined;
    },
    get shown() {
      return current !== undefined;
    },
  };
}
