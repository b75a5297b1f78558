// Only the branch of the program a command line names is built (src/cli/command-word.ts): the
// word is found past the root's options; anything unclear builds every command, and what a user
// sees does not change either way.
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { commandWord } from '../../src/cli/command-word.js';
import { createStreams } from '../../src/io/streams.js';
import { runCli } from '../helpers/cli.js';

const names = (argv?: string[]) => {
  const io = createStreams({ tty: { stdin: false, stdout: false, stderr: false }, env: {} });
  return buildProgram({ factory: () => { throw new Error('no command runs here'); }, io }, argv).commands.map((c) => c.name());
};

describe('the command word', () => {
  it('is the first word past the root options, their values skipped', () => {
    expect(commandWord(['balance'])).toBe('balance');
    expect(commandWord(['--json', 'balance', '--asset', 'USDC'])).toBe('balance');
    expect(commandWord(['-p', 'transfer', 'transfer', 'ls'])).toBe('transfer');
    expect(commandWord(['--profile', 'bot', '--base-url', 'http://127.0.0.1:1', '--timeout', '5s', '-y', '-v', '--no-input', '--no-color', 'pending', 'ls'])).toBe('pending');
    expect(commandWord(['--profile=bot', '--timeout=5s', 'agent'])).toBe('agent');
  });

  it('knows every option of the root program, and whether it takes a value (else a new one would silently build everything)', () => {
    const io = createStreams({ tty: { stdin: false, stdout: false, stderr: false }, env: {} });
    const root = buildProgram({ factory: () => { throw new Error('no command runs here'); }, io });
    const options = root.options.filter((o) => !['--version', '--help'].includes(o.long ?? ''));
    expect(options.length).toBeGreaterThan(5);
    for (const o of options) {
      for (const spelling of [o.long, o.short].filter((x): x is string => x !== undefined)) {
        const argv = [spelling, ...(o.required || o.optional ? ['value'] : []), 'balance'];
        expect(commandWord(argv), argv.join(' ')).toBe('balance');
      }
    }
  });

  it('is not guessed past anything else: commander then sees every command', () => {
    for (const argv of [[], ['--help'], ['-V'], ['--', 'balance'], ['-yv', 'balance'], ['-pbot', 'balance'], ['--bogus', 'balance'], ['--profile']]) {
      expect(commandWord(argv), argv.join(' ')).toBeUndefined();
    }
  });
});

describe('the program built for a command line', () => {
  it('holds only the command it names', () => {
    expect(names(['--json', 'balance'])).toEqual(['balance']);
    expect(names(['transfer', 'ls'])).toEqual(['transfer']);
  });

  it('holds every command when no known command is named (help, a typo, no argv at all), and for a completion script', () => {
    const all = names();
    expect(all.length).toBeGreaterThan(10);
    expect(all).toContain('help');
    for (const argv of [[], ['help', 'transfer'], ['transfr', 'ls'], ['--bogus', 'balance'], ['--help'], ['completion', 'bash']]) expect(names(argv), argv.join(' ')).toEqual(all);
  });

  it('answers as the whole program would: a typo gets its suggestion, a named command its own help', async () => {
    const typo = await runCli(['transfr', 'ls']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/transfer/);
    const help = await runCli(['transfer', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: svc transfer /);
    expect(help.stdout).toContain('send');
  });
});
