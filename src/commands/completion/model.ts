// The completion model: a plain description of the commander program (commands, aliases,
// options, arguments and where their values come from), read from the program itself so the
// shell scripts cannot drift from the commands. Pure: no I/O, no environment.
import { Help, type Argument, type Command, type Option } from 'commander';
import { KNOWN_ASSETS } from '../../domain/assets.js';

/** Where the value of an option or a positional argument is completed from. */
export type ValueSource =
  | { kind: 'none' } // free text: nothing to suggest
  | { kind: 'choices'; values: readonly string[] }
  | { kind: 'profiles' } // profile names, asked lazily from `svc __complete profiles`
  | { kind: 'files' }
  | { kind: 'env' }; // names of exported environment variables

export interface OptionSpec {
  /** `-p`, when the option has a short flag. */
  short?: string;
  /** `--profile`, when the option has a long flag. */
  long?: string;
  description: string;
  /** Whether the option takes a value: none (a switch), required (`<v>`) or optional (`[v]`). */
  arity: 'none' | 'required' | 'optional';
  /** The value's placeholder, e.g. `name` for `--profile <name>`. */
  valueName: string;
  values: ValueSource;
  /** Variadic or collecting options may be given more than once. */
  repeatable: boolean;
}

export interface ArgumentSpec {
  name: string;
  required: boolean;
  variadic: boolean;
  values: ValueSource;
}

export interface CommandSpec {
  name: string;
  aliases: string[];
  description: string;
  /** Names from the root, e.g. ['transfer', 'send']; [] for the root. */
  path: string[];
  /** The command's own options (inherited ones are in the ancestors' specs). */
  options: OptionSpec[];
  args: ArgumentSpec[];
  commands: CommandSpec[];
}

const NONE: ValueSource = { kind: 'none' };
const PROFILES: ValueSource = { kind: 'profiles' };
const FILES: ValueSource = { kind: 'files' };
const ENV: ValueSource = { kind: 'env' };
const choices = (values: readonly string[]): ValueSource => ({ kind: 'choices', values });

/**
 * Values the program does not declare itself (commander `.choices()` wins over these).
 * `path` is the command path by primary names; `*` matches any command.
 */
const OPTION_HINTS: ReadonlyArray<{ path: string; long: string; values?: ValueSource; repeatable?: boolean }> = [
  { path: '*', long: '--profile', values: PROFILES },
  { path: '*', long: '--asset', values: choices(KNOWN_ASSETS) },
  { path: '*', long: '--policy-file', values: FILES },
  { path: '*', long: '--state', values: FILES },
  { path: '*', long: '--secret-env', values: ENV },
  { path: 'transfer ls', long: '--status', values: choices(['pending', 'confirmed', 'failed']) },
  { path: 'pending ls', long: '--status', values: choices(['pending_approval', 'approved', 'rejected', 'expired']) },
  // Policy flags that may be given more than once (DESIGN.md: --allow and --asset repeat).
  { path: 'agent create', long: '--allow', repeatable: true },
  { path: 'agent create', long: '--asset', repeatable: true },
  { path: 'agent policy set', long: '--allow', repeatable: true },
  { path: 'agent policy set', long: '--asset', repeatable: true },
  { path: 'api', long: '--query', repeatable: true },
];

const ARGUMENT_HINTS: ReadonlyArray<{ path: string; name: string; values: ValueSource }> = [
  { path: 'profile use', name: 'name', values: PROFILES },
  { path: 'profile rm', name: 'name', values: PROFILES },
  { path: 'profile show', name: 'name', values: PROFILES },
  { path: 'profile set', name: 'name', values: PROFILES },
  { path: 'api', name: 'method', values: choices(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) },
];

// `<path>` is left out: in `svc api <method> <path>` it is a URL path, not a file.
const FILE_PLACEHOLDER_RE = /^(file|dir|directory)$|[-_]file$/i;

function hintFor<T extends { path: string }>(hints: readonly T[], path: string[], match: (h: T) => boolean): T | undefined {
  const joined = path.join(' ');
  return hints.find((h) => (h.path === '*' || h.path === joined) && match(h));
}

function placeholderOf(flags: string): string {
  return /[<[]([^>\]]+)[>\]]/.exec(flags)?.[1]?.replace(/\.\.\.$/, '') ?? 'value';
}

function optionSpec(opt: Option, path: string[]): OptionSpec {
  const arity = opt.required ? 'required' : opt.optional ? 'optional' : 'none';
  const valueName = placeholderOf(opt.flags);
  let values: ValueSource = NONE;
  if (arity !== 'none') {
    if (opt.argChoices?.length) values = choices(opt.argChoices);
    else {
      const hint = hintFor(OPTION_HINTS, path, (h) => h.long === opt.long && h.values !== undefined);
      if (hint) values = hint.values!;
      else if (FILE_PLACEHOLDER_RE.test(valueName) || /-file$/.test(opt.long ?? '')) values = FILES;
    }
  }
  const repeatHint = hintFor(OPTION_HINTS, path, (h) => h.long === opt.long && h.repeatable !== undefined);
  return {
    ...(opt.short ? { short: opt.short } : {}),
    ...(opt.long ? { long: opt.long } : {}),
    description: firstLine(opt.description),
    arity,
    valueName,
    values,
    repeatable: repeatHint?.repeatable ?? (opt.variadic || Array.isArray(opt.defaultValue)),
  };
}

function argumentSpec(arg: Argument, path: string[]): ArgumentSpec {
  const name = arg.name();
  let values: ValueSource = NONE;
  if (arg.argChoices?.length) values = choices(arg.argChoices);
  else {
    const hint = hintFor(ARGUMENT_HINTS, path, (h) => h.name === name);
    if (hint) values = hint.values;
    else if (FILE_PLACEHOLDER_RE.test(name)) values = FILES;
  }
  return { name, required: arg.required, variadic: arg.variadic, values };
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n')[0]!.trim();
}

/** Reads the command tree of a commander program (hidden commands and options are left out). */
export function describeProgram(program: Command): CommandSpec {
  const help = new Help();
  const walk = (cmd: Command, path: string[]): CommandSpec => ({
    name: cmd.name(),
    aliases: [...cmd.aliases()],
    description: firstLine(cmd.description()),
    path,
    options: help.visibleOptions(cmd).map((o) => optionSpec(o, path)),
    args: cmd.registeredArguments.map((a) => argumentSpec(a, path)),
    // visibleCommands() adds commander's implicit `help` command, which is not in cmd.commands.
    commands: help
      .visibleCommands(cmd)
      .filter((c) => cmd.commands.includes(c))
      .map((c) => walk(c, [...path, c.name()])),
  });
  return walk(program, []);
}

/** Every command of the tree, depth first, the root first. */
export function flatten(spec: CommandSpec): CommandSpec[] {
  return [spec, ...spec.commands.flatMap(flatten)];
}

/** The options valid at a command: its own and its ancestors' (commander parses them anywhere). */
export function optionsAt(root: CommandSpec, path: string[]): OptionSpec[] {
  const seen = new Set<string>();
  const out: OptionSpec[] = [];
  let node: CommandSpec | undefined = root;
  const chain: CommandSpec[] = [root];
  for (const name of path) {
    node = node?.commands.find((c) => c.name === name);
    if (node) chain.push(node);
  }
  // The nearest definition wins (a command's own --help over the root's).
  for (const cmd of chain.reverse()) {
    for (const opt of cmd.options) {
      const key = opt.long ?? opt.short!;
      if (seen.has(key) || (opt.short && seen.has(opt.short))) continue;
      seen.add(key);
      if (opt.short) seen.add(opt.short);
      out.push(opt);
    }
  }
  return out;
}

/** Every flag spelling of an option (`-p`, `--profile`). */
export function flagsOf(opt: OptionSpec): string[] {
  return [opt.short, opt.long].filter((f): f is string => Boolean(f));
}
