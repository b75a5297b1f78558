// Walks the hints of a failing command (issue 36, "no hint names a command that the same state
// refuses"): takes each `svc …` command out of the `hint:` lines of stderr, runs it in the same
// state, and the failing command again after it, until the command works or no hint is left.
// A hint command may fail, but not with the error of the command it was named by, never with a
// command already run on the way (a circle), and never with a stand-in (`<name>`) in it: a hint
// is a command that works as typed.
import { expect } from 'vitest';
import type { CliResult } from './cli.js';

export interface WalkStep {
  argv: string[];
  code: number;
  /** The error code of a failure (`network_error`), from its `error:` line. */
  error?: string;
  stderr: string;
}

export interface Walker {
  /** Runs one command in the state under test (a `sandbox start` is the walker's to run: it listens). */
  run(argv: string[]): Promise<CliResult>;
}

/** A command's words as svc prints them: plain, or in single quotes with '\'' for a quote (shell-command.ts). */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      word += text.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '\\') {
      word += text[++i] ?? '';
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The `svc …` commands in the `hint:` lines of a plain stderr, as argv. */
export function hintCommands(stderr: string): string[][] {
  return stderr.split('\n').filter((l) => l.startsWith('hint: '))
    .flatMap((l) => [...l.matchAll(/`svc ([^`]*)`/g)].map((m) => shellWords(m[1]!)));
}

export function errorCode(stderr: string): string | undefined {
  return /^error: .* \(([a-z_]+)(?:: [a-z_]+)?(?:, request \w+)?\)$/m.exec(stderr)?.[1];
}

const stepOf = (argv: string[], r: CliResult): WalkStep => ({ argv, code: r.code, stderr: r.stderr, ...(errorCode(r.stderr) ? { error: errorCode(r.stderr)! } : {}) });

export const trailText = (trail: WalkStep[]) => trail.map((s) => `$ svc ${s.argv.join(' ')}  → exit ${s.code}${s.error ? ` (${s.error})` : ''}\n${s.stderr}`).join('');

/**
 * Runs `argv`; while it fails, runs each command its hints name (each once), then `argv` again.
 * Returns every step, the last being `argv`'s last run.
 */
export async function walkHints(walker: Walker, argv: string[], trail: WalkStep[] = [], tried = new Set<string>(), depth = 0): Promise<WalkStep[]> {
  tried.add(argv.join(' '));
  let last = stepOf(argv, await walker.run(argv));
  trail.push(last);
  while (last.code !== 0) {
    const next = hintCommands(last.stderr).filter((h) => !tried.has(h.join(' ')) || expect.fail(`a hint leads in a circle: \`svc ${h.join(' ')}\` again\n${trailText(trail)}`));
    if (next.length === 0 || depth > 4) return trail;
    for (const hint of next) {
      expect(hint.join(' '), `a hint command runs as typed\n${trailText(trail)}`).not.toMatch(/<[a-z-]+>/);
      const before = trail.length;
      await walkHints(walker, hint, trail, tried, depth + 1);
      const first = trail[before]!;
      // The command a hint names may fail, but never as the command it was to fix.
      if (first.code !== 0) expect(first.error, `\`svc ${hint.join(' ')}\` fails as the command it was named by\n${trailText(trail)}`).not.toBe(last.error);
    }
    const again = stepOf(argv, await walker.run(argv));
    trail.push(again);
    if (again.code !== 0 && again.error === last.error && again.stderr === last.stderr) return trail; // nothing changed: the hints are spent
    last = again;
  }
  return trail;
}
