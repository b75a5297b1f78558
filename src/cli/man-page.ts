// The man page (man/svc.1), generated from the commander program as the completion scripts
// are: every visible command with its usage, description, arguments, options and help footer,
// then the exit codes and environment from their one sources. A pure function of the program:
// no date, no path, no width (`npm run man` writes it; a test fails when the committed page
// differs).
import type { EventEmitter } from 'node:events';
import type { Command, Help, Option } from 'commander';
import { VERSION } from '../version.js';
import { parseFooter, renderExample } from '../runtime/help-text.js';
import { ENVIRONMENT, exitCodes, HELP_TOPICS, NOTIFY_ENVIRONMENT } from './help-topics.js';

/** Text for roff: backslashes, hyphens (flags copy as typed) and a leading dot or quote escaped. */
export function roffText(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/^([.'])/gm, '\\&$1')
    .replace(/[^\x00-\x7f]/gu, (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}

/** Examples are set in a block indented 11 columns on an 80-column man page: they wrap at this. */
const EXAMPLE_WIDTH = 66;

const bold = (s: string) => `\\fB${roffText(s)}\\fR`;

/** A flags string such as `-p, --profile <name>`: the flags bold, the value italic. */
function flagsTerm(flags: string): string {
  return flags
    .split(/(\s+|,)/)
    .map((part) => (/^-/.test(part) ? bold(part) : /^[<[]/.test(part) ? `\\fI${roffText(part)}\\fR` : roffText(part)))
    .join('');
}

function visible(cmd: Command): Command[] {
  return cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
}

/** The footer a command's help prints after its options, unwrapped (a paragraph per line). */
function footerOf(cmd: Command): string {
  let text = '';
  // man fills the paragraphs itself: the footer is flowed at no width (this command's help is
  // wrapped so only while the page is made).
  cmd.configureOutput({ getOutHelpWidth: () => Number.MAX_SAFE_INTEGER });
  (cmd as unknown as EventEmitter).emit('afterHelp', { error: false, command: cmd, write: (s: string) => void (text += s) });
  return text;
}

function footerRoff(text: string): string[] {
  const out: string[] = [];
  let examples = false;
  for (const b of parseFooter(text.split('\n'))) {
    if (b.kind !== 'example' && examples) {
      out.push('.fi', '.RE');
      examples = false;
    }
    if (b.kind === 'heading') out.push('.PP', bold(b.text));
    else if (b.kind === 'prose') out.push('.PP', roffText(b.text));
    else if (b.kind === 'example') {
      if (!examples) out.push('.RS 4', '.nf');
      examples = true;
      out.push(...renderExample(b.command, b.comment, EXAMPLE_WIDTH).map((l) => roffText(l.slice(2))));
    }
  }
  if (examples) out.push('.fi', '.RE');
  return out;
}

function optionsRoff(options: readonly Option[], help: Help): string[] {
  return options.flatMap((o) => ['.TP', flagsTerm(o.flags), roffText(help.optionDescription(o))]);
}

function commandRoff(cmd: Command, help: Help): string[] {
  const out = [`.SS "${roffText(help.commandUsage(cmd)).replace(/"/g, '\\(dq')}"`];
  out.push(roffText(cmd.description()));
  const args = help.visibleArguments(cmd).filter((a) => a.description);
  if (args.length) out.push('.PP', bold('Arguments:'), ...args.flatMap((a) => ['.TP', `\\fI${roffText(a.name())}\\fR`, roffText(help.argumentDescription(a))]));
  const opts = help.visibleOptions(cmd).filter((o) => o.long !== '--help');
  if (opts.length) out.push('.PP', bold('Options:'), ...optionsRoff(opts, help));
  out.push(...footerRoff(footerOf(cmd)));
  for (const sub of visible(cmd)) out.push(...commandRoff(sub, help));
  return out;
}

/** Every visible command's path below the program, depth first (`transfer`, `transfer send` ...). */
export function commandPaths(program: Command): string[] {
  const walk = (cmd: Command, prefix: string[]): string[] => visible(cmd).flatMap((c) => [[...prefix, c.name()].join(' '), ...walk(c, [...prefix, c.name()])]);
  return walk(program, []);
}

export function generateManPage(program: Command): string {
  const help = program.createHelp();
  const lines = [
    `.\\" Generated from the program by \`npm run man\` (src/cli/man-page.ts): do not edit.`,
    `.TH SVC 1 "" "svc ${VERSION}" "User Commands"`,
    // No hyphenation: flags and ids are copied as they are printed.
    '.nh',
    '.SH NAME',
    `svc \\- ${roffText(program.description())}`,
    '.SH SYNOPSIS',
    `${bold('svc')} [\\fIglobal options\\fR] \\fIcommand\\fR [\\fIsubcommand\\fR] [\\fIoptions\\fR] [\\fIarguments\\fR]`,
    '.br',
    `${bold('svc help')} \\fIcommand\\fR | \\fItopic\\fR`,
    '.SH DESCRIPTION',
    roffText('svc works with accounts, confidential transfers, agents and their spend policies, approvals and webhooks of the payments service, and runs a local sandbox of it (svc sandbox start). Results go to stdout, messages to stderr; --json prints exactly one JSON document.'),
    '.PP',
    roffText(`Help topics: ${HELP_TOPICS.map((t) => `svc help ${t.name} (${t.summary})`).join('; ')}.`),
    '.SH GLOBAL OPTIONS',
    ...optionsRoff(help.visibleOptions(program), help),
    ...footerRoff(footerOf(program)),
    '.SH COMMANDS',
    ...visible(program).flatMap((c) => commandRoff(c, help)),
    '.SH EXIT STATUS',
    ...exitCodes().flatMap(({ code, meaning }) => ['.TP', bold(String(code)), roffText(meaning)]),
    '.SH ENVIRONMENT',
    ...ENVIRONMENT.flatMap((v) => ['.TP', v.names.map(bold).join(', '), roffText(v.meaning)]),
    '.PP',
    roffText('Set by svc for the command of svc pending review --notify-command:'),
    ...NOTIFY_ENVIRONMENT.flatMap((v) => ['.TP', v.names.map(bold).join(', '), roffText(v.meaning)]),
    '.SH FILES',
    '.TP',
    bold('$SVC_CONFIG_DIR, else $XDG_CONFIG_HOME/svc, else ~/.config/svc'),
    roffText('config.json (profiles: API keys, mode 0600 in a 0700 directory), the send and batch journals (ids and keys, never amounts), the approvals log.'),
    '.SH SEE ALSO',
    roffText('The guides in the docs/ folder of the installed package (npm root -g shows where global packages are): sandbox.md, configuration.md, exit-codes.md, json.md, agents.md, approvals.md, payouts.md, webhooks.md, completion.md, security.md.'),
    '',
  ];
  return lines.join('\n');
}
