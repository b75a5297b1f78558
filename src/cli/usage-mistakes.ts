// The commonest usage mistakes get the next step, not only commander's sentence: an option named
// like a positional argument (`transfer send @acme --amount 1`: the usage line), an asset typed
// as a third argument (`… 1 USDC`: `--asset USDC`), a misspelt option even where commander
// checks a required option first (`agent policy check … --ammount 1`: did you mean `--amount`?),
// a missing or extra argument (the usage line). Exit 2, code `usage`, nothing sent. A word the
// user typed is echoed only when it cannot be an amount (an option's name, a known asset).
import { type Command, CommanderError } from 'commander';
import { isKnownAsset } from '../domain/assets.js';
import { UsageError } from '../errors.js';

/** The error to report for commander's `err` raised by `cmd`: sharper where a mistake is known. */
export function explainUsage(cmd: Command, err: CommanderError): Error {
  switch (err.code) {
    case 'commander.unknownOption': {
      const flag = /unknown option '([^']+)'/.exec(err.message)?.[1];
      return (flag ? unknownOption(cmd, flag) : undefined) ?? err;
    }
    case 'commander.missingMandatoryOptionValue':
    case 'commander.missingArgument': {
      // Commander checks required options and arguments before unknown ones: a misspelt option
      // (`--ammount`) would be reported as the missing one it meant. The misspelling is the news.
      const flag = firstUnknownOption(cmd);
      const sharper = flag ? unknownOption(cmd, flag) : undefined;
      if (sharper) return sharper;
      if (err.code === 'commander.missingArgument') return withHint(err, usageHint(cmd));
      return err;
    }
    case 'commander.excessArguments':
      return excessArguments(cmd) ?? err;
    default:
      return err;
  }
}

/** `svc transfer send [options] <to> <amount>`, in backticks (a hint's command). */
export function usageHint(cmd: Command): string {
  return `usage: \`${commandPath(cmd)} ${cmd.usage()}\``;
}

function unknownOption(cmd: Command, typed: string): UsageError | undefined {
  const flag = typed.split('=')[0]!;
  if (!flag.startsWith('--')) return undefined;
  const name = flag.slice(2).toLowerCase();
  const positional = cmd.registeredArguments.find((a) => close(name, a.name().toLowerCase()));
  if (positional && !longOptions(cmd).some((o) => close(flag, o))) {
    return new UsageError(`unknown option '${flag}': <${positional.name()}> is an argument, given without a flag`, usageHint(cmd), 'usage');
  }
  const similar = nearest(flag, longOptions(cmd));
  return new UsageError(`unknown option '${flag}'`, similar ? `did you mean \`${similar}\`?` : usageHint(cmd), 'usage');
}

/** `transfer send @acme 1 USDC`: the asset goes in --asset; anything else, the usage line. */
function excessArguments(cmd: Command): UsageError | undefined {
  const expected = cmd.registeredArguments.length;
  const extra = cmd.args.filter((a) => !a.startsWith('-')).slice(expected);
  const names = cmd.registeredArguments.map((a) => `<${a.name()}>`).join(' ');
  const message = `too many arguments for '${cmd.name()}': it takes ${expected} (${names}), got ${expected + extra.length}`;
  const asset = extra.find((a) => isKnownAsset(a.toUpperCase()));
  if (asset && cmd.options.some((o) => o.long === '--asset')) {
    return new UsageError(message, `the asset is an option: \`--asset ${asset.toUpperCase()}\` (${usageHint(cmd)})`, 'usage');
  }
  return new UsageError(message, usageHint(cmd), 'usage');
}

/** The first `--word` on the command line that none of the command's (or the root's) options is. */
function firstUnknownOption(cmd: Command): string | undefined {
  const known = longOptions(cmd);
  return cmd.args.map((a) => a.split('=')[0]!).find((a) => a.startsWith('--') && a !== '--' && !known.includes(a));
}

/** The long options a user may give here: the command's and its ancestors' (global options). */
function longOptions(cmd: Command): string[] {
  const out: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) for (const o of c.options) if (o.long && !o.hidden) out.push(o.long);
  return out;
}

function nearest(flag: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = distance(flag, c);
    if (d < bestDistance && close(flag, c)) [best, bestDistance] = [c, d];
  }
  return best;
}

/** A likely typo: a few edits apart, relative to the length (commander's rule of thumb). */
function close(a: string, b: string): boolean {
  const d = distance(a, b);
  return d <= Math.max(1, Math.floor(Math.min(a.length, b.length) * 0.4)) && d <= 3;
}

/** Optimal string alignment distance (insertions, deletions, substitutions, adjacent swaps). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

function withHint(err: CommanderError, hint: string): UsageError {
  return new UsageError(err.message.replace(/^error: /, '').split('\n')[0]!.trim(), hint, 'usage');
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
