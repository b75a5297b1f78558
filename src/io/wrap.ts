// Prose for a terminal: words in lines that fit its width (doctor's findings, a table's footer).
import { textWidth } from './table.js';

/** Words (a `command` in backticks counts as one) in lines of at most `max` columns. */
export function wrap(text: string, max: number): string[] {
  if (!Number.isFinite(max) || textWidth(text) <= max) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.match(/(?:[^\s`]*`[^`]*`)+[^\s`]*|\S+/g) ?? []) {
    if (line && textWidth(line) + 1 + textWidth(word) > max) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}
