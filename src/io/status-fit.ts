// Cutting a status line to the terminal's width (docs/ux.md, Status lines). A line wider than the
// terminal wraps, and redrawing it in place then clears only its last row: every redraw would
// leave a row behind. Widths are display widths (a wide character takes two columns). The id in
// it is what a person pastes back, so it is kept whole while it fits: the words before it give
// room first, then the words after it.
import { textWidth, truncateEnd } from './table.js';

/**
 * svc's and the service's ids (`txn_…`, `tr_…`, `key_…`, `acct_…`): a lower-case prefix, `_`,
 * then letters and digits with at least one capital or digit, so that a status such as
 * `pending_approval` or `network_error` is a word, not an id.
 */
const ID = /\b[a-z]{1,8}_(?=[A-Za-z0-9]*[A-Z0-9])[A-Za-z0-9]+\b/g;

/** `text` within `width` columns (plain text: sanitised, no escape codes). */
export function fitStatus(text: string, width: number): string {
  if (width <= 0) return '';
  if (textWidth(text) <= width) return text;
  const ids = [...text.matchAll(ID)];
  const first = ids[0];
  const last = ids.at(-1);
  if (!first || !last) return truncateEnd(text, width);
  const head = text.slice(0, first.index);
  const middle = text.slice(first.index, last.index + last[0].length); // the ids and what is between them: whole
  const tail = text.slice(last.index + last[0].length);
  const room = width - textWidth(middle);
  // Even the ids alone do not fit: nothing else can give room, the line is cut at its end.
  if (room < 0) return truncateEnd(`${middle}${tail}`, width);
  const tailWidth = textWidth(tail);
  if (room >= tailWidth) return `${cutWords(head, room - tailWidth)}${middle}${tail}`;
  return `${middle}${truncateEnd(tail, room)}`;
}

/**
 * The words before an id in at most `max` columns: as many whole words as fit, then `…`, then
 * the space before the id (`waiting for a human to… txn_…`); nothing when not even one fits.
 */
function cutWords(head: string, max: number): string {
  if (textWidth(head) <= max) return head;
  const gap = /\s*$/.exec(head)![0];
  const words = head.slice(0, head.length - gap.length).split(/\s+/);
  for (let n = words.length - 1; n > 0; n--) {
    const out = `${words.slice(0, n).join(' ')}…${gap}`;
    if (textWidth(out) <= max) return out;
  }
  return '';
}
