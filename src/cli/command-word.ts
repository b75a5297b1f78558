// The command a command line names, found before commander parses it: the first word after the
// root's own options. Building only that command's branch of the program saves every run the
// cost of defining the other ten (~4 ms); anything this does not recognise builds all of them.

/** The root options that take a value (program.ts), spelled apart from it. */
const WITH_VALUE = new Set(['-p', '--profile', '--base-url', '--timeout']);
const FLAGS = new Set(['--json', '-y', '--yes', '--no-input', '--no-color', '-v', '--verbose']);

/** The first word naming a command, or undefined when argv has none or is not plainly spelled. */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-')) return arg;
    if (FLAGS.has(arg)) continue;
    if (WITH_VALUE.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('--') && WITH_VALUE.has(arg.split('=', 1)[0]!) && arg.includes('=')) continue; // --profile=bot
    // `--`, a combined or unknown option, --help, --version: commander decides, with every command.
    return undefined;
  }
  return undefined;
}
