// Shell completion: the generator (a pure function of the commander program), the committed
// scripts in completions/ (must equal what `svc completion <shell>` prints now), and what real
// bash, zsh and fish do with them.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { generateCompletion, SHELLS, type Shell } from '../../../src/commands/completion/generate.js';
import { describeProgram, optionsAt } from '../../../src/commands/completion/model.js';
import { ProfileStore } from '../../../src/config/profiles.js';
import { createStreams } from '../../../src/io/streams.js';
import { hasTmux, killAllTmux, startTmux } from '../../helpers/tmux.js';
import { hasTool } from '../../helpers/tools.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'bin/svc.js');
const FILES: Record<Shell, string> = { bash: 'completions/svc.bash', zsh: 'completions/_svc', fish: 'completions/svc.fish' };

const has = (shell: 'bash' | 'zsh' | 'fish'): boolean => hasTool(shell);

function realProgram(): Command {
  const io = createStreams({ tty: { stdin: false, stdout: false, stderr: false }, env: {} });
  return buildProgram({ factory: () => { throw new Error('no command runs here'); }, io });
}

/** A program with every feature the generator handles, independent of the real commands. */
function fixtureProgram(): Command {
  const program = new Command('svc')
    .option('-p, --profile <name>', 'profile to use')
    .option('--json', 'JSON output')
    .option('--no-color', 'no colour');
  const thing = program.command('thing').alias('th').description("Manage things: it's [fun]");
  thing.command('make <name> [rest...]').description('Make a thing').option('--kind <kind>', 'kind').option('--out-file <file>', 'write here');
  thing
    .command('list')
    .alias('ls')
    .addOption(new Option('--color-mode <mode>', 'when to colour').choices(['auto', 'always', 'never']))
    .option('--tag <tag...>', 'tags (repeatable)')
    .option('--level [n]', 'optional value');
  program.command('secret', { hidden: true });
  program.command('leaf <file>').description('Read a file').option('--secret-env <name>', 'environment variable holding the secret');
  return program;
}

describe('completion model (from the commander program)', () => {
  it('reads commands, aliases, options, arguments and value sources; hidden commands are left out', () => {
    const spec = describeProgram(fixtureProgram());
    expect(spec.commands.map((c) => c.name)).toEqual(['thing', 'leaf']);
    const thing = spec.commands[0]!;
    expect(thing.aliases).toEqual(['th']);
    expect(thing.commands.map((c) => [c.name, c.aliases])).toEqual([['make', []], ['list', ['ls']]]);
    const make = thing.commands[0]!;
    expect(make.path).toEqual(['thing', 'make']);
    expect(make.args).toEqual([
      { name: 'name', required: true, variadic: false, values: { kind: 'none' } },
      { name: 'rest', required: false, variadic: true, values: { kind: 'none' } },
    ]);
    expect(make.options.find((o) => o.long === '--out-file')?.values).toEqual({ kind: 'files' });
    const list = thing.commands[1]!;
    expect(list.options.find((o) => o.long === '--color-mode')?.values).toEqual({ kind: 'choices', values: ['auto', 'always', 'never'] });
    expect(list.options.find((o) => o.long === '--tag')).toMatchObject({ arity: 'required', repeatable: true });
    expect(list.options.find((o) => o.long === '--level')).toMatchObject({ arity: 'optional' });
    expect(spec.options.find((o) => o.long === '--profile')).toMatchObject({ short: '-p', arity: 'required', values: { kind: 'profiles' } });
    expect(spec.options.find((o) => o.long === '--no-color')).toMatchObject({ arity: 'none' });
    expect(spec.commands[1]!.args[0]!.values).toEqual({ kind: 'files' });
    expect(spec.commands[1]!.options.find((o) => o.long === '--secret-env')?.values).toEqual({ kind: 'env' });
    // Options valid at a command: its own first, then its ancestors', --help once.
    const at = optionsAt(spec, ['thing', 'list']).map((o) => o.long);
    expect(at.slice(0, 3)).toEqual(['--color-mode', '--tag', '--level']);
    expect(at.filter((l) => l === '--help')).toHaveLength(1);
    expect(at).toContain('--profile');
  });

  it('knows the real program: nouns, verbs, aliases, global options and fixed choices', () => {
    const spec = describeProgram(realProgram());
    const names = spec.commands.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['profile', 'completion']));
    expect(names).not.toContain('__complete');
    const profile = spec.commands.find((c) => c.name === 'profile')!;
    expect(profile.commands.find((c) => c.name === 'ls')?.aliases).toEqual(['list']);
    expect(profile.commands.find((c) => c.name === 'use')?.args[0]?.values).toEqual({ kind: 'profiles' });
    expect(spec.commands.find((c) => c.name === 'completion')?.args[0]?.values).toEqual({ kind: 'choices', values: ['bash', 'zsh', 'fish'] });
    expect(spec.options.map((o) => o.long)).toEqual(expect.arrayContaining(['--profile', '--json', '--yes', '--no-input', '--no-color', '--verbose']));
  });

  it('is a pure function of the program: the same program gives the same scripts', () => {
    for (const shell of SHELLS) expect(generateCompletion(realProgram(), shell)).toBe(generateCompletion(realProgram(), shell));
  });
});

describe('svc completion <shell>', () => {
  it.each(SHELLS)('committed %s script equals what `svc completion` prints now (else run `npm run completions`)', (shell) => {
    const r = spawnSync(process.execPath, [BIN, 'completion', shell], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const committed = readFileSync(join(ROOT, FILES[shell]), 'utf8');
    expect(committed, `${FILES[shell]} is out of date: run \`npm run completions\``).toBe(r.stdout);
    // The source tree agrees too (dist/ is not stale).
    expect(generateCompletion(realProgram(), shell)).toBe(r.stdout);
  });

  it('rejects an unknown shell with exit 2 and one line on stderr', () => {
    const r = spawnSync(process.execPath, [BIN, 'completion', 'powershell'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/bash, zsh, fish/);
  });

  it('the hidden `__complete profiles` prints profile names, one per line, and nothing without a config', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-compl-'));
    try {
      const empty = spawnSync(process.execPath, [BIN, '__complete', 'profiles'], { encoding: 'utf8', env: { PATH: process.env.PATH, SVC_CONFIG_DIR: join(dir, 'none') } });
      expect([empty.status, empty.stdout, empty.stderr]).toEqual([0, '', '']);
      const store = new ProfileStore(dir);
      await store.set('work', { apiKey: 'svc_test_aaaaaaaaaaaaaaaaaaaa', baseUrl: 'http://127.0.0.1:1' });
      await store.set('home', { apiKey: 'svc_test_bbbbbbbbbbbbbbbbbbbb', baseUrl: 'http://127.0.0.1:1' });
      const r = spawnSync(process.execPath, [BIN, '__complete', 'profiles'], { encoding: 'utf8', env: { PATH: process.env.PATH, SVC_CONFIG_DIR: dir } });
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('home\nwork\n');
      const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
      expect(help.stdout).not.toContain('__complete');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Real shells. `svc` on PATH is a wrapper around this checkout's bin/svc.js; profiles "home"
// and "work" live in a private config dir.

let sandboxDir = '';
let shellEnv: Record<string, string> = {};
let fixtureDir = '';

beforeAll(async () => {
  sandboxDir = mkdtempSync(join(tmpdir(), 'svc-compl-sh-'));
  const binDir = join(sandboxDir, 'bin');
  mkdirSync(binDir);
  writeFileSync(join(binDir, 'svc'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(binDir, 'svc'), 0o755);
  const configDir = join(sandboxDir, 'config');
  const store = new ProfileStore(configDir);
  await store.set('work', { apiKey: 'svc_test_aaaaaaaaaaaaaaaaaaaa', baseUrl: 'http://127.0.0.1:1' });
  await store.set('home', { apiKey: 'svc_test_bbbbbbbbbbbbbbbbbbbb', baseUrl: 'http://127.0.0.1:1' });
  const home = join(sandboxDir, 'home');
  mkdirSync(home);
  shellEnv = { PATH: `${binDir}:${process.env.PATH}`, HOME: home, SVC_CONFIG_DIR: configDir, LANG: 'C.UTF-8' };
  fixtureDir = join(sandboxDir, 'fixture');
  mkdirSync(fixtureDir);
  for (const shell of SHELLS) writeFileSync(join(fixtureDir, shell), generateCompletion(fixtureProgram(), shell));
});

afterAll(() => {
  if (sandboxDir) rmSync(sandboxDir, { recursive: true, force: true });
});

describe.each(SHELLS)('%s parses', (shell) => {
  const check: Record<Shell, (file: string) => string[]> = {
    bash: (f) => ['bash', '-n', f],
    zsh: (f) => ['zsh', '-n', f],
    fish: (f) => ['fish', '--no-execute', f],
  };
  it.skipIf(!has(shell))(`the committed ${shell} script and a fixture program's`, () => {
    for (const file of [join(ROOT, FILES[shell]), join(fixtureDir, shell)]) {
      const [cmd, ...args] = check[shell](file);
      const r = spawnSync(cmd!, args, { encoding: 'utf8' });
      expect(r.status, `${file}: ${r.stderr}`).toBe(0);
    }
  });
});

/**
 * Runs bash's completion function the way readline would for each command line (split on
 * blanks; a trailing blank starts a new empty word) and returns COMPREPLY per line.
 */
function bashComplete(script: string, lines: string[][], cwd = sandboxDir, env = shellEnv): string[][] {
  const driver = [
    `source '${script}'`,
    '_t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=(); _svc; printf "%s\\037" "${COMPREPLY[@]}"; printf "\\036"; }',
    ...lines.map((words) => `_t ${words.map((w) => `'${w}'`).join(' ')}`),
  ].join('\n');
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', driver], { encoding: 'utf8', env, cwd });
  return out.split('\x1e').slice(0, -1).map((s) => s.split('\x1f').filter(Boolean));
}

describe.skipIf(!has('bash'))('bash completion', () => {
  it('completes nouns, verbs, aliases, option names, option values and arguments', () => {
    const script = join(ROOT, FILES.bash);
    const cases: Array<[string[], (r: string[]) => void]> = [
      [['svc', 'pro'], (r) => expect(r).toEqual(['profile'])],
      [['svc', ''], (r) => expect(r).toEqual(expect.arrayContaining(['profile', 'completion']))],
      [['svc', 'profile', ''], (r) => expect(r).toEqual(['add', 'ls', 'use', 'rm', 'migrate', 'set', 'show'])],
      [['svc', 'profile', 'li'], (r) => expect(r).toEqual(['list'])],
      [['svc', '--json', 'profile', 'l'], (r) => expect(r).toEqual(['ls'])],
      [['svc', '--profile', ''], (r) => expect(r).toEqual(['home', 'work'])],
      [['svc', '-p', 'w'], (r) => expect(r).toEqual(['work'])],
      [['svc', '--profile', '=', ''], (r) => expect(r).toEqual(['home', 'work'])],
      [['svc', '-p', 'work', 'profile', 'use', ''], (r) => expect(r).toEqual(['home', 'work'])],
      [['svc', 'profile', 'use', 'home', ''], (r) => expect(r).toEqual([])],
      [['svc', 'completion', ''], (r) => expect(r).toEqual(['bash', 'zsh', 'fish'])],
      [['svc', 'profile', 'add', '--'], (r) => expect(r).toEqual(expect.arrayContaining(['--key-stdin', '--use', '--profile', '--json', '--help']))],
      [['svc', '--no-'], (r) => expect(r).toEqual(['--no-input', '--no-color'])],
      // One word (a COMP_WORDBREAKS without "="): the value is completed with its prefix.
      [['svc', '--profile=h'], (r) => expect(r).toEqual(['--profile=home'])],
    ];
    const results = bashComplete(script, cases.map(([w]) => w));
    cases.forEach(([words, check], i) => {
      try {
        check(results[i]!);
      } catch (err) {
        throw new Error(`svc completion for [${words.join(' ')}] gave [${results[i]!.join(' ')}]: ${(err as Error).message}`);
      }
    });
  });

  it('completes the transfer noun and its verbs', () => {
    const [tra, verbs, status] = bashComplete(join(ROOT, FILES.bash), [['svc', 'tra'], ['svc', 'transfer', ''], ['svc', 'transfer', 'ls', '--status', '']]);
    expect(tra).toContain('transfer');
    expect(verbs).toEqual(expect.arrayContaining(['send', 'ls', 'get']));
    expect(status).toEqual(['pending', 'confirmed', 'failed']);
  });

  it('handles variadic arguments, files, choices and optional values (fixture program)', () => {
    const [make, rest, kindVal, choicesVal, level, leaf, fileOpt, envOpt] = bashComplete(join(fixtureDir, 'bash'), [
      ['svc', 'th', 'make', '--'],
      ['svc', 'thing', 'make', 'a', 'b', ''],
      ['svc', 'thing', 'make', '--kind', ''],
      ['svc', 'thing', 'ls', '--color-mode', 'a'],
      ['svc', 'thing', 'list', '--level', ''],
      ['svc', 'leaf', 'fi'],
      ['svc', 'thing', 'make', '--out-file', 'ba'],
      ['svc', 'leaf', '--secret-env', 'SVC_CONF'],
    ], fixtureDir); // which holds the files bash, fish and zsh
    expect(make).toEqual(expect.arrayContaining(['--kind', '--out-file', '--profile', '--json']));
    expect(rest).toEqual([]);
    expect(kindVal).toEqual([]);
    expect(choicesVal).toEqual(['auto', 'always']);
    expect(level).toEqual([]); // an optional value must be attached: the next word is not it
    expect(leaf).toEqual(['fish']);
    expect(fileOpt).toEqual(['bash']);
    expect(envOpt).toEqual(['SVC_CONFIG_DIR']);
  });
});

function fishComplete(script: string, line: string, env = shellEnv, cwd?: string): Array<{ value: string; description: string }> {
  const out = execFileSync('fish', ['--no-config', '-c', `source '${script}'; complete -C '${line}'`], { encoding: 'utf8', env, ...(cwd ? { cwd } : {}) });
  return out.split('\n').filter(Boolean).map((l) => {
    const [value, description = ''] = l.split('\t');
    return { value: value!, description };
  });
}
const values = (r: Array<{ value: string }>) => r.map((x) => x.value);

describe.skipIf(!has('fish'))('fish completion', () => {
  const script = () => join(ROOT, FILES.fish);

  it('completes nouns with descriptions, verbs, aliases, profiles and choices', () => {
    expect(fishComplete(script(), 'svc pro')).toEqual([{ value: 'profile', description: expect.stringContaining('profiles') }]);
    expect(values(fishComplete(script(), 'svc profile '))).toEqual(['add', 'ls', 'migrate', 'rm', 'set', 'show', 'use']);
    expect(values(fishComplete(script(), 'svc profile li'))).toEqual(['list']);
    expect(values(fishComplete(script(), 'svc --profile '))).toEqual(['home', 'work']);
    expect(values(fishComplete(script(), 'svc profile rm '))).toEqual(['home', 'work']);
    expect(values(fishComplete(script(), 'svc completion '))).toEqual(['bash', 'fish', 'zsh']);
    expect(values(fishComplete(script(), 'svc profile add --'))).toEqual(expect.arrayContaining(['--key-stdin', '--use', '--profile', '--json']));
    // A value is expected after --profile: no command names there.
    expect(values(fishComplete(script(), 'svc --json -p '))).toEqual(['home', 'work']);
  });

  it('completes the transfer noun and its verbs', () => {
    expect(values(fishComplete(script(), 'svc tra'))).toContain('transfer');
    expect(values(fishComplete(script(), 'svc transfer '))).toEqual(expect.arrayContaining(['send', 'ls', 'get']));
    expect(values(fishComplete(script(), 'svc transfer ls --status '))).toEqual(['confirmed', 'failed', 'pending']);
  });

  it('handles variadic arguments, files and choices (fixture program)', () => {
    const f = join(fixtureDir, 'fish');
    expect(values(fishComplete(f, 'svc th '))).toEqual(['list', 'make']);
    expect(values(fishComplete(f, 'svc thing list --color-mode '))).toEqual(['always', 'auto', 'never']);
    expect(values(fishComplete(f, 'svc thing make x y '))).toEqual([]);
    expect(values(fishComplete(f, 'svc thing make --'))).toEqual(expect.arrayContaining(['--kind', '--out-file', '--profile']));
    expect(values(fishComplete(f, 'svc leaf --secret-env SVC_CONF'))).toEqual(['SVC_CONFIG_DIR']);
  });
});

describe.skipIf(!has('zsh'))('zsh completion', () => {
  afterEach(killAllTmux);

  it('defines _svc and registers it for svc, sourced after compinit or autoloaded from $fpath', () => {
    const script = join(ROOT, FILES.zsh);
    const sourced = execFileSync('zsh', ['-f', '-c', `autoload -U compinit; compinit -u -D; source '${script}'; print -r -- "$_comps[svc]"; whence -w _svc _svc_cmd_profile_use`], { encoding: 'utf8', env: shellEnv });
    expect(sourced.split('\n')).toEqual(['_svc', '_svc: function', '_svc_cmd_profile_use: function', '']);
    const fpath = join(ROOT, 'completions');
    const autoloaded = execFileSync('zsh', ['-f', '-c', `fpath=('${fpath}' $fpath); autoload -U compinit; compinit -u -D; print -r -- "$_comps[svc]"`], { encoding: 'utf8', env: shellEnv });
    expect(autoloaded).toBe('_svc\n');
  });

  /** An interactive zsh in tmux with compinit and `fpathDir` (holding _svc) in $fpath. */
  async function zshSession(fpathDir: string) {
    const s = await startTmux(['zsh', '-f', '-i'], { env: shellEnv, cwd: sandboxDir });
    await s.sendText(`PS1='zsh> '; fpath=('${fpathDir}' $fpath); autoload -U compinit; compinit -u -D; echo READY\n`);
    await s.waitFor(/^READY$/m);
    return {
      /** Types a line and TAB; waits for the screen to match. */
      async complete(line: string, expected: string | RegExp) {
        await s.sendKeys('C-u', 'C-l');
        await s.sendText(line);
        await s.sendKeys('Tab');
        return s.waitFor(expected, 10_000);
      },
      /** Types a line and TAB, then "#" to show where the cursor ended up. */
      async inserted(line: string, result: string) {
        await s.sendKeys('C-u', 'C-l');
        await s.sendText(line);
        await s.sendKeys('Tab');
        await s.sendText('#');
        return s.waitFor(`zsh> ${result}#`, 10_000);
      },
    };
  }

  it.skipIf(!hasTmux())('completes for real in an interactive zsh (driven through tmux)', async () => {
    const { complete, inserted } = await zshSession(join(ROOT, 'completions'));
    // A unique match is inserted, a list is shown with descriptions.
    await inserted('svc pro', 'svc profile ');
    const verbs = await complete('svc profile ', /^rm +-- Remove a profile/m);
    expect(verbs).toMatch(/^ls +-- List profiles/m);
    await complete('svc --profile ', /^home +work$/m);
    await complete('svc completion ', /^bash +fish +zsh$/m);
    await inserted('svc profile li', 'svc profile list ');
    await inserted('svc profile add --key', 'svc profile add --key-stdin ');
    await inserted('svc tra', 'svc transfer ');
    const transfer = await complete('svc transfer ', /^send +--/m);
    expect(transfer).toMatch(/^ls +--/m);
    expect(transfer).toMatch(/^get +--/m);
    await complete('svc transfer ls --status=', /^confirmed +failed +pending$/m);
    // Options still complete after positional arguments; profile names after `profile use`.
    await inserted('svc transfer send @bob 5 --me', 'svc transfer send @bob 5 --memo=');
    await inserted('svc profile use h', 'svc profile use home ');
  }, 60_000);

  it.skipIf(!hasTmux())('handles aliases, variadic arguments, repeatable options and escaping (fixture program)', async () => {
    const dir = join(fixtureDir, 'zfunc');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '_svc'), readFileSync(join(fixtureDir, 'zsh')));
    const { complete, inserted } = await zshSession(dir);
    await complete('svc ', /^thing +-- Manage things: it's \[fun\]$/m);
    await complete('svc th ', /^make +-- Make a thing$/m);
    await inserted('svc thing make a b --k', 'svc thing make a b --kind=');
    await inserted('svc thing ls --tag x --t', 'svc thing ls --tag x --tag=');
    await complete('svc thing list --color-mode ', /^always +auto +never$/m);
  }, 60_000);
});

describe.skipIf(!has('bash') || !hasTmux())('bash completion in a real readline (tmux)', () => {
  afterEach(killAllTmux);

  it('inserts a unique match and lists choices, including after --opt=', async () => {
    const s = await startTmux(['bash', '--norc', '--noprofile', '-i'], { env: shellEnv, cwd: sandboxDir });
    const inserted = async (line: string, result: string) => {
      await s.sendKeys('C-u', 'C-l');
      await s.sendText(line);
      await s.sendKeys('Tab');
      await s.sendText('#');
      return s.waitFor(`bash> ${result}#`, 10_000);
    };
    await s.sendText(`PS1='bash> '; source '${join(ROOT, FILES.bash)}'; echo READY\n`);
    await s.waitFor(/^READY$/m);
    await inserted('svc pro', 'svc profile ');
    await inserted('svc --profile w', 'svc --profile work ');
    await inserted('svc --profile=h', 'svc --profile=home ');
    await s.sendKeys('C-u', 'C-l');
    await s.sendText('svc completion ');
    await s.sendKeys('Tab', 'Tab');
    await s.waitFor(/^bash +fish +zsh$/m, 10_000);
    await inserted('svc tra', 'svc transfer ');
    await inserted('svc transfer ls --status=c', 'svc transfer ls --status=confirmed ');
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// Words from the config are data. config.json can be edited by hand, so a profile name may hold
// anything: no script may evaluate it ($(...), `...`, ;), glob it, or split it. Each shell offers
// such a name as itself (quoted where it inserts it) or not at all (a name with a newline or
// another control character cannot be one word of a command line).

describe('profile names that are shell code', () => {
  /** A name as bash's printf %q and zsh quote these: a backslash before each special character. */
  const quoted = (name: string) => name.replace(/[$()`; *\\]/g, '\\$&');
  let marks = '';
  let env: Record<string, string> = {};
  let names: { dollar: string; backtick: string; semicolon: string; newline: string; glob: string };
  /** The names offered, as `svc __complete profiles` prints them (sorted; the newline one left out). */
  let offered: string[] = [];

  beforeAll(() => {
    marks = join(sandboxDir, 'marks');
    mkdirSync(marks);
    names = {
      dollar: `$(touch ${marks}/dollar)`,
      backtick: `\`touch ${marks}/backtick\``,
      semicolon: `x;touch ${marks}/semicolon`,
      newline: `y\ntouch ${marks}/newline`,
      glob: '*',
    };
    const configDir = join(sandboxDir, 'hostile-config');
    mkdirSync(configDir, { mode: 0o700 });
    const profile = { apiKey: 'svc_test_aaaaaaaaaaaaaaaaaaaa', baseUrl: 'http://127.0.0.1:1' };
    const all = ['home', ...Object.values(names)];
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ current: 'home', profiles: Object.fromEntries(all.map((n) => [n, profile])) }), { mode: 0o600 });
    env = { ...shellEnv, SVC_CONFIG_DIR: configDir };
    offered = all.filter((n) => n !== names.newline).sort((a, b) => a.localeCompare(b));
  });
  afterEach(() => {
    // Whatever a shell did, nothing was run.
    expect(readdirSync(marks)).toEqual([]);
  });

  it('`svc __complete profiles` prints each name as it is, one a line; a name with a newline is left out, not altered', () => {
    const r = spawnSync(process.execPath, [BIN, '__complete', 'profiles'], { encoding: 'utf8', env });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(`${offered.join('\n')}\n`);
  });

  it.skipIf(!has('bash'))('bash offers them quoted (printf %q), never expanded, split or globbed', () => {
    const unquote = (w: string) => w.replace(/\\(.)/g, '$1');
    const [flag, use, prefixed, oneWord] = bashComplete(join(ROOT, FILES.bash), [
      ['svc', '--profile', ''],
      ['svc', 'profile', 'use', ''],
      ['svc', '-p', 'x'],
      ['svc', '--profile=$'],
    ], sandboxDir, env);
    for (const r of [flag!, use!]) {
      expect(r.map(unquote)).toEqual(offered);
      expect(r).toEqual(offered.map(quoted));
      expect(r.join('\n')).not.toContain('newline');
    }
    expect(prefixed).toEqual([`x\\;touch\\ ${marks}/semicolon`]);
    expect(oneWord).toEqual([`--profile=\\$\\(touch\\ ${marks}/dollar\\)`]);
    // What bash would put on the command line is the name itself, as one word.
    const echoed = execFileSync('bash', ['--norc', '--noprofile', '-c', `printf '%s\\n' ${prefixed![0]}`], { encoding: 'utf8', env, cwd: sandboxDir });
    expect(echoed).toBe(`${names.semicolon}\n`);
  });

  it.skipIf(!has('fish') || !hasTmux())('fish offers them literally and inserts one quoted, never evaluated (also interactive, through tmux)', async () => {
    for (const line of ['svc --profile ', 'svc profile rm ']) {
      expect(values(fishComplete(join(ROOT, FILES.fish), line, env, sandboxDir)).sort((a, b) => a.localeCompare(b))).toEqual(offered);
    }
    expect(values(fishComplete(join(ROOT, FILES.fish), 'svc -p x', env, sandboxDir))).toEqual([names.semicolon]);
    const s = await startTmux(['fish', '--no-config'], { env, cwd: sandboxDir, width: 200 });
    try {
      await s.sendText(`source '${join(ROOT, FILES.fish)}'; clear; echo READY\n`);
      await s.waitFor(/^READY$/m);
      await s.sendText('svc -p x');
      await s.sendKeys('Tab');
      await s.sendText('#');
      await s.waitFor(`svc -p x\\;touch\\ ${marks}/semicolon #`, 10_000);
    } finally {
      await s.kill();
    }
  }, 60_000);

  it.skipIf(!has('zsh') || !hasTmux())('zsh lists and inserts them quoted, never evaluated (interactive, through tmux)', async () => {
    const s = await startTmux(['zsh', '-f', '-i'], { env, cwd: sandboxDir, width: 200 });
    try {
      await s.sendText(`PS1='zsh> '; fpath=('${join(ROOT, 'completions')}' $fpath); autoload -U compinit; compinit -u -D; echo READY\n`);
      await s.waitFor(/^READY$/m);
      await s.sendKeys('C-u', 'C-l');
      await s.sendText('svc --profile ');
      await s.sendKeys('Tab');
      // zsh lists each name as it would insert it: quoted.
      const screen = await s.waitFor(quoted(names.dollar), 10_000);
      for (const n of [names.backtick, names.semicolon, names.glob, 'home']) expect(screen).toContain(quoted(n));
      expect(screen).not.toContain('newline');
      await s.sendKeys('C-u', 'C-l');
      await s.sendText('svc profile use x');
      await s.sendKeys('Tab');
      await s.sendText('#');
      await s.waitFor(`zsh> svc profile use x\\;touch\\ ${marks}/semicolon #`, 10_000);
    } finally {
      await s.kill();
    }
  }, 60_000);
});
