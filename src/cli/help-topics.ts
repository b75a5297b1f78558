// `svc help exit-codes` and `svc help environment` (gh's help topics). Each is printed from one
// source: the exit map in src/errors.ts, and the list below of every environment variable svc
// reads or sets (test/cli/help-topics.test.ts fails when src reads one this list does not name).
import { EXIT_CODE_MEANING, ExitCode } from '../errors.js';
import { wrapText } from '../runtime/help-text.js';

export interface EnvVariable {
  readonly names: readonly string[];
  readonly meaning: string;
}

/** What svc reads from the environment. */
export const ENVIRONMENT: readonly EnvVariable[] = [
  { names: ['SVC_PROFILE'], meaning: 'the profile to use, as --profile does. A named profile is used as a whole: the SVC_API_KEY, SVC_BASE_URL and SVC_DECRYPTION_KEY variables are then ignored.' },
  { names: ['SVC_API_KEY'], meaning: 'the API key, in place of the current profile\'s (when no profile is named). Never put a key on the command line.' },
  { names: ['SVC_BASE_URL'], meaning: 'the service base URL, in place of the current profile\'s (--base-url wins).' },
  { names: ['SVC_DECRYPTION_KEY'], meaning: 'the decryption key that opens amounts and memos locally, in place of the current profile\'s.' },
  { names: ['SVC_CONFIG_DIR'], meaning: 'the configuration directory (profiles, journals, logs). Default: $XDG_CONFIG_HOME/svc, else ~/.config/svc.' },
  { names: ['XDG_CONFIG_HOME'], meaning: 'where the configuration directory is when SVC_CONFIG_DIR is not set.' },
  { names: ['SVC_CREDENTIAL_STORE'], meaning: 'where a new profile\'s secrets go: auto (default: the OS keyring, else config.json with a warning), keyring (fail without one: keyring_unavailable), file (config.json, 0600). For CI without a keyring: file, or SVC_API_KEY.' },
  { names: ['SVC_KEYRING_TIMEOUT_MS'], meaning: 'how long the OS keyring may take to answer before auto falls back (default 3000).' },
  { names: ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR'], meaning: 'the session bus where the Secret Service (the Linux keyring) is asked for.' },
  { names: ['HTTPS_PROXY', 'HTTP_PROXY'], meaning: 'the proxy an https base URL is reached through (a CONNECT tunnel: the proxy never sees a key); lower-case names too. Plain http and loopback are always direct.' },
  { names: ['ALL_PROXY'], meaning: 'not used by svc (`svc doctor` says so when it is set).' },
  { names: ['NO_PROXY'], meaning: 'hosts reached directly: comma or space separated names, .suffixes, *.suffixes, host:port, or *.' },
  { names: ['NODE_EXTRA_CA_CERTS'], meaning: 'a PEM file of certificate authorities trusted besides the system\'s (a company proxy or service).' },
  { names: ['NODE_TLS_REJECT_UNAUTHORIZED'], meaning: '0 turns certificate checks off in Node; `svc doctor` warns about it.' },
  { names: ['NO_COLOR'], meaning: 'any non-empty value turns colour off, as --no-color does.' },
  { names: ['TERM'], meaning: '"dumb" turns colour off; "dumb" and "linux" get an ASCII spinner.' },
  { names: ['COLUMNS'], meaning: 'the width tables fit in when stdout is not a terminal (default 80).' },
  { names: ['CI'], meaning: '"true": never prompt (as --no-input); set at all: no update notice.' },
  { names: ['SVC_NO_UPDATE_NOTIFIER', 'NO_UPDATE_NOTIFIER'], meaning: 'set: never check for or mention a newer release (docs/configuration.md, "News of updates").' },
  { names: ['SVC_UPDATE_REGISTRY', 'npm_config_registry'], meaning: 'the npm registry the update check asks (default https://registry.npmjs.org/); no credentials are sent.' },
  { names: ['XDG_CACHE_HOME'], meaning: 'where svc keeps the code it compiled, to start faster next time: $XDG_CACHE_HOME/svc/code-cache, else ~/.cache/svc/code-cache (docs/performance.md).' },
  { names: ['NODE_DISABLE_COMPILE_CACHE'], meaning: 'set: that code cache is neither read nor written (as for Node\'s own compile cache).' },
  { names: ['SVC_DEBUG_CODE_CACHE'], meaning: 'a file the code cache appends to: each file of the program loaded (from the cache or compiled) and each cache written.' },
];

/** What svc sets for the command of `svc pending review --notify-command` (values sanitised). */
export const NOTIFY_ENVIRONMENT: readonly EnvVariable[] = [
  { names: ['SVC_TRANSACTION_ID'], meaning: 'the held transaction\'s id' },
  { names: ['SVC_AGENT'], meaning: 'the agent that asked' },
  { names: ['SVC_TO'], meaning: 'the recipient' },
  { names: ['SVC_EXPIRES_AT'], meaning: 'when the decision window closes (ISO 8601)' },
  { names: ['SVC_APPROVALS'], meaning: 'how many approvals it has so far (0 when newly held)' },
  { names: ['SVC_APPROVALS_REQUIRED'], meaning: 'how many approvals by distinct owner keys it needs (1 unless its policy asks for more)' },
  { names: ['SVC_APPROVED_BY'], meaning: 'who approved so far, as `key "ops2" of @alice` (empty when nobody yet)' },
];

/** Every variable name the environment topic lists. */
export function environmentNames(): string[] {
  return [...ENVIRONMENT, ...NOTIFY_ENVIRONMENT].flatMap((v) => v.names);
}

/** Exit codes in ascending order, each with its meaning (from the one map). */
export function exitCodes(): Array<{ code: number; meaning: string }> {
  return (Object.keys(ExitCode) as Array<keyof typeof ExitCode>)
    .map((k) => ({ code: ExitCode[k], meaning: EXIT_CODE_MEANING[k] }))
    .sort((a, b) => a.code - b.code);
}

/** A term and its description, the description wrapped and indented under it. */
function entry(term: string, text: string, width: number, indent = 8): string[] {
  const pad = ' '.repeat(indent);
  if (term.length + 2 < indent) {
    const [first = '', ...rest] = wrapText(text, width, pad);
    return [`  ${term}`.padEnd(indent) + first.slice(indent), ...rest];
  }
  return [`  ${term}`, ...wrapText(text, width, pad)];
}

export interface HelpTopic {
  readonly name: string;
  readonly summary: string;
  render(width: number): string;
}

export const HELP_TOPICS: readonly HelpTopic[] = [
  {
    name: 'environment',
    summary: 'the environment variables svc reads',
    render: (width) => [
      ...wrapText('Environment variables svc reads. Flags win over them; a named profile (--profile or SVC_PROFILE) is used as a whole.', width),
      '',
      ...ENVIRONMENT.flatMap((v) => entry(v.names.join(', '), v.meaning, width)),
      '',
      ...wrapText('Set by svc for the command of `svc pending review --notify-command` (the values only in its environment, never in its command line):', width),
      '',
      ...NOTIFY_ENVIRONMENT.flatMap((v) => entry(v.names.join(', '), v.meaning, width)),
      '',
      ...wrapText('`svc webhook verify --secret-env NAME` and `webhook listen --secret-env NAME` read the variable you name. More: docs/configuration.md.', width),
    ].join('\n'),
  },
  {
    name: 'exit-codes',
    summary: 'what each exit code of svc means',
    render: (width) => [
      ...wrapText('Exit codes of svc: the same for every command, with or without --json. A script may rely on them.', width),
      '',
      ...exitCodes().flatMap(({ code, meaning }) => entry(String(code), meaning, width)),
      '',
      ...wrapText('An error prints one line on stderr, `error: <message> (<code>)`, and often a `hint:` line; with --json, one {"error": {...}} object on stderr. The error codes behind each exit code: docs/exit-codes.md.', width),
    ].join('\n'),
  },
];

export function findTopic(name: string): HelpTopic | undefined {
  return HELP_TOPICS.find((t) => t.name === name);
}
