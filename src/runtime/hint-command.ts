// A hint's commands run as typed: every `svc …` command in backticks gets the global options
// that chose this run's target (--profile, --base-url, as given on the command line), quoted
// for a shell. One rewrite for every hint (report.ts applies it to each error's hint, with and
// without --json; a command that prints a hint line itself passes it through here), so no call
// site words the target itself. docs/ux.md "Hints".
import type { GlobalOptions } from './factory.js';
import { shellWord } from '../domain/shell-command.js';

/** The options that chose the target: the only ones a hint carries. */
export type HintTarget = Pick<GlobalOptions, 'profile' | 'baseUrl'>;

/**
 * Nouns whose commands do not act on the selected target (they manage profiles, print help or
 * completion scripts): their hints stay as written.
 */
const TARGETLESS = new Set(['profile', 'help', 'completion']);

export { shellWord } from '../domain/shell-command.js';

/** The target's options as shell words, in the order the help lists them. */
export function targetWords(target: HintTarget): string[] {
  const words: string[] = [];
  if (target.profile !== undefined) words.push('--profile', shellWord(target.profile));
  if (target.baseUrl !== undefined) words.push('--base-url', shellWord(target.baseUrl));
  return words;
}

/**
 * The hint with the target's options in each `svc …` command it names in backticks. A command
 * that names its own profile (`svc --profile <owner-profile> pending ls`: another principal's)
 * or base URL, or one of a targetless noun, is left as written.
 */
export function withTarget(hint: string, target: HintTarget): string {
  const words = targetWords(target);
  if (words.length === 0) return hint;
  return hint.replace(/`svc((?: [^`]*)?)`/g, (whole: string, rest: string) => {
    const args = rest.trim().split(/\s+/);
    if (args.some((a) => a === '--profile' || a === '-p' || a.startsWith('--profile=') || a === '--base-url' || a.startsWith('--base-url='))) return whole;
    const noun = args.find((a) => !a.startsWith('-'));
    if (noun === undefined || TARGETLESS.has(noun)) return whole;
    return `\`svc ${words.join(' ')}${rest}\``;
  });
}
