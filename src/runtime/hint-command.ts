// A hint's commands run as typed: every `svc …` command in backticks gets the global options
// that chose this run's target (--profile, --base-url, as given on the command line), quoted
// for a shell. One rewrite for every hint (report.ts applies it to each error's hint, with and
// without --json; a command that prints a hint line itself passes it through here), so no call
// site words the target itself. A `svc sandbox …` command takes the profile that acts on the
// sandbox (never one of the user's own, which it would refuse). docs/ux.md "Hints".
import type { GlobalOptions } from './factory.js';
import { shellWord } from '../domain/shell-command.js';
import { configDir } from '../config/paths.js';
import { readProfiles } from '../config/profile-file.js';
import { sandboxCommandProfile } from '../config/sandbox-follow.js';

/** The options that chose the target: the only ones a hint carries. */
export type HintTarget = Pick<GlobalOptions, 'profile' | 'baseUrl'> & {
  /**
   * The profile a `svc sandbox …` command takes for this target (config/sandbox-follow.ts):
   * null when --profile names a profile of the user's own (`sandbox start` would refuse it, the
   * admin commands could not use it); undefined: the target's profile.
   */
  sandboxProfile?: string | null;
};

/** This run's target, with the profile its `svc sandbox …` hints take (read from config.json; as typed when it cannot be read). */
export function hintTarget(env: NodeJS.ProcessEnv, globals: Pick<GlobalOptions, 'profile' | 'baseUrl'>): HintTarget {
  const target: HintTarget = { profile: globals.profile, baseUrl: globals.baseUrl };
  if (globals.profile === undefined) return target;
  try {
    return { ...target, sandboxProfile: sandboxCommandProfile(readProfiles(configDir(env)), globals.profile) };
  } catch {
    return target;
  }
}

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
 * A `svc sandbox …` command's share of the target: the profile it takes (sandboxProfile), and the
 * base URL except for `sandbox start`, which has none to take (it listens where --port says).
 */
function sandboxWords(target: HintTarget, verb: string | undefined): string[] {
  const profile = target.sandboxProfile === undefined ? target.profile : (target.sandboxProfile ?? undefined);
  return targetWords({ profile, baseUrl: verb === 'start' ? undefined : target.baseUrl });
}

/**
 * The hint with the target's options in each `svc …` command it names in backticks. A command
 * that names its own profile (`svc --profile <owner-profile> pending ls`: another principal's)
 * or base URL, or one of a targetless noun, is left as written.
 */
export function withTarget(hint: string, target: HintTarget): string {
  if (targetWords(target).length === 0) return hint;
  return hint.replace(/`svc((?: [^`]*)?)`/g, (whole: string, rest: string) => {
    const args = rest.trim().split(/\s+/);
    if (args.some((a) => a === '--profile' || a === '-p' || a.startsWith('--profile=') || a === '--base-url' || a.startsWith('--base-url='))) return whole;
    const at = args.findIndex((a) => !a.startsWith('-'));
    const noun = args[at];
    if (noun === undefined || TARGETLESS.has(noun)) return whole;
    const words = noun === 'sandbox' ? sandboxWords(target, args[at + 1]) : targetWords(target);
    return words.length === 0 ? whole : `\`svc ${words.join(' ')}${rest}\``;
  });
}
