// Help footers (prose, examples, exit codes) are written as lines in the registration files and
// flowed at render time to the width commander helps at (the terminal's, 80 when not a terminal:
// docs/ux.md, "Help width"). Source line breaks inside a paragraph mean nothing.
import type { Command } from 'commander';

/** The width help is rendered at when nothing better is known (a pipe, a file, a test). */
export const HELP_WIDTH = 80;
/** Narrower than this, prose is still wrapped at this width (a line may then run over). */
const MIN_WIDTH = 40;
const EXAMPLE = '  $ ';
const CONTINUATION = '      ';

type Block = { kind: 'blank' } | { kind: 'heading'; text: string } | { kind: 'prose'; text: string } | { kind: 'example'; command: string; comment?: string };

/** The parts of a footer: blank lines, headings ("Examples:"), paragraphs and example commands. */
export function parseFooter(lines: readonly string[]): Block[] {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') {
      blocks.push({ kind: 'blank' });
    } else if (line.startsWith(EXAMPLE)) {
      // A command continued with a trailing backslash is one example.
      let text = line.slice(EXAMPLE.length);
      while (/\s\\$/.test(text) && i + 1 < lines.length && lines[i + 1]!.startsWith(CONTINUATION)) text = `${text.replace(/\s*\\$/, '')} ${lines[++i]!.trim()}`;
      const m = /^(.*?)\s{2,}# (.*)$/.exec(text);
      blocks.push(m ? { kind: 'example', command: m[1]!.trim(), comment: m[2]! } : { kind: 'example', command: text.trim() });
    } else if (/^[A-Z][\w -]*:$/.test(line)) {
      blocks.push({ kind: 'heading', text: line });
    } else {
      const last = blocks.at(-1);
      if (last?.kind === 'prose') last.text = `${last.text} ${line.trim()}`;
      else blocks.push({ kind: 'prose', text: line.trim() });
    }
  }
  return blocks;
}

/** Words of a shell command, quotes kept whole (an example is broken only between words). */
function shellWords(command: string): string[] {
  return command.match(/(?:[^\s'"]+|'[^']*'|"(?:\\.|[^"\\])*")+/g) ?? [command];
}

/** Greedy wrap at spaces; a word longer than the width stands on its own line. */
export function wrapText(text: string, width: number, indent = ''): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      out.push(indent + line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) out.push(indent + line);
  return out;
}

/** An example command (and its comment) in lines of at most `width` columns where words allow. */
export function renderExample(command: string, comment: string | undefined, width: number): string[] {
  const one = `${EXAMPLE}${command}${comment ? `   # ${comment}` : ''}`;
  if (one.length <= width) return [one];
  const out = comment ? wrapText(comment, width, '  # ') : [];
  if (EXAMPLE.length + command.length <= width) return [...out, EXAMPLE + command];
  // Too long for one line: continued with backslashes, as it would be typed.
  let line = EXAMPLE.trimEnd();
  let fresh = true;
  for (const word of shellWords(command)) {
    if (!fresh && line.length + 1 + word.length + 2 > width) {
      out.push(`${line} \\`);
      line = CONTINUATION.slice(1);
    }
    line = `${line} ${word}`;
    fresh = false;
  }
  out.push(line);
  return out;
}

/** A footer's lines flowed to `width` columns. */
export function flowFooter(lines: readonly string[], width: number): string {
  const w = Math.max(MIN_WIDTH, width);
  const out: string[] = [];
  for (const b of parseFooter(lines)) {
    if (b.kind === 'blank') out.push('');
    else if (b.kind === 'heading') out.push(b.text);
    else if (b.kind === 'prose') out.push(...wrapText(b.text, w));
    else out.push(...renderExample(b.command, b.comment, w));
  }
  return out.join('\n');
}

/** The width a command's help is rendered at (set on every command by the program). */
export function helpWidthOf(command: Command, error = false): number {
  const output = command.configureOutput();
  const width = error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.();
  return typeof width === 'number' && width > 0 ? width : HELP_WIDTH;
}

/**
 * A footer for `addHelpText('after', ...)`: the lines are flowed when the help is shown, at
 * the width of the stream it goes to.
 */
export function helpFooter(lines: readonly string[]): (context: { error: boolean; command: Command }) => string {
  return ({ error, command }) => flowFooter(lines, helpWidthOf(command, error));
}
