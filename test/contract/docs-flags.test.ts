// Every flag a doc shows in an `svc …` command is one today's program has and `--help` shows
// (issue 36: docs/mcp.md still said `--hitl-threshold` and `--per-tx-limit`, hidden old names).
// The commands are read from docs/*.md and README.md: each line of a code block and each inline
// code span, from `svc` to the end of that command (a pipe, `;`, `&&`, a comment); the words are
// walked down the commander program (nouns, then verbs), and each `--flag` must be an option of
// that command or of a command above it (the global options), and not a hidden one.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { createStreams } from '../../src/io/streams.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = [join(ROOT, 'README.md'), ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, 'docs', f))];

function program(): Command {
  const io = createStreams({ tty: { stdin: false, stdout: false, stderr: false }, env: {} });
  return buildProgram({ factory: () => { throw new Error('no command runs here'); }, io });
}

/** The commands of a markdown text: `svc …` up to the end of the command, with where each was found. */
export function svcCommands(markdown: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  const lines = markdown.split('\n');
  let fenced = false;
  const take = (text: string, line: number) => {
    for (const m of text.matchAll(/(?:^|[\s|;&(`$"'])svc(?=\s)/g)) out.push({ line, text: `svc${commandEnd(text.slice(m.index + m[0].length))}`.trim() });
  };
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (/^\s*(```|~~~)/.test(raw)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      // A command continued on the next line with a backslash is one command.
      let text = raw;
      const start = i;
      while (/\\\s*$/.test(text) && i + 1 < lines.length) text = `${text.replace(/\\\s*$/, ' ')}${lines[++i]!}`;
      take(text, start + 1);
    } else {
      for (const span of raw.matchAll(/`([^`]+)`/g)) take(` ${span[1]!}`, i + 1);
    }
  }
  return out;
}

/**
 * The text of one command: up to an unquoted pipe, `;`, `&&`, comment, redirection, closing
 * parenthesis or backtick (the end of a code span).
 */
function commandEnd(rest: string): string {
  let quote: string | undefined;
  for (let k = 0; k < rest.length; k++) {
    const c = rest[k]!;
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '|' || c === ';' || c === '`' || c === ')' || c === '>' || (c === '&' && rest[k + 1] === '&') || (c === '#' && /\s/.test(rest[k - 1] ?? ' '))) return rest.slice(0, k);
  }
  return rest;
}

const clean = (token: string) => token.replace(/^[[({]+|[\])},.:]+$/g, '');

/** The words of a command; a quoted word is a value (it may hold another program's flags), never a flag. */
function wordsOf(text: string): string[] {
  return [...text.matchAll(/'[^']*'?|"(?:[^"\\]|\\.)*"?|\S+/g)].map((m) => (/^['"]/.test(m[0]) ? 'VALUE' : clean(m[0]))).filter(Boolean);
}

/** The flags of a command line the program would not show, as `--flag (svc noun verb)`. */
function unknownFlags(root: Command, text: string): string[] {
  const words = wordsOf(text).slice(1);
  let cmd = root;
  const chain = [root];
  const options = () => chain.flatMap((c) => c.options as readonly Option[]);
  const bad: string[] = [];
  for (let k = 0; k < words.length; k++) {
    const word = words[k]!;
    if (word === '--') break;
    if (word.startsWith('-')) {
      const name = word.split('=')[0]!;
      const opt = options().find((o) => o.long === name || o.short === name);
      if (name.startsWith('--') && name !== '--help' && (!opt || opt.hidden)) {
        bad.push(`${name} (${chain.map((c) => c.name()).join(' ')})`);
      }
      if (opt?.required && !word.includes('=')) k++; // its value
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) {
      cmd = sub;
      chain.push(sub);
    }
  }
  return bad; // no exceptions: a doc that needs an old name says it in prose, outside a command
}

describe('flags in the docs', () => {
  const root = program();

  it('reads the commands of the docs (the reader itself)', () => {
    const md = ['Run `svc agent create bot --daily-limit 5` first.', '```sh', '$ printenv K | svc profile add ci --key-stdin \\', '    --base-url https://x  # a comment --not-a-flag', '```', 'not svc_test_ --x'].join('\n');
    expect(svcCommands(md).map((c) => c.text)).toEqual(['svc agent create bot --daily-limit 5', 'svc profile add ci --key-stdin      --base-url https://x']);
    // A quoted value is not a flag, and a `;` or `|` inside it does not end the command.
    const quoted = svcCommands('```\nsvc pending review --notify-command \'notify-send --urgency=low "a; b | c"\' --watch | tee x\n```');
    expect(quoted.map((c) => c.text)).toEqual(['svc pending review --notify-command \'notify-send --urgency=low "a; b | c"\' --watch']);
    expect(unknownFlags(root, quoted[0]!.text)).toEqual([]);
    expect(unknownFlags(root, 'svc agent create bot --hitl-threshold 50 --per-tx-limit 500')).toEqual(['--hitl-threshold (svc agent create)', '--per-tx-limit (svc agent create)']);
    expect(unknownFlags(root, 'svc --profile bot --json transfer send @acme 1 [--asset A] --wait')).toEqual([]);
    expect(unknownFlags(root, 'svc transfer ls --wait')).toEqual(['--wait (svc transfer ls)']);
  });

  it('every `--flag` of an `svc …` command in docs/*.md and README.md exists and is shown by --help', () => {
    const found: string[] = [];
    let commands = 0;
    for (const file of DOCS) {
      for (const c of svcCommands(readFileSync(file, 'utf8'))) {
        commands++;
        for (const flag of unknownFlags(root, c.text)) found.push(`${file.slice(ROOT.length + 1)}:${c.line}: ${flag}: ${c.text.trim()}`);
      }
    }
    expect(commands).toBeGreaterThan(200); // the docs were read
    expect(found).toEqual([]);
  });
});
