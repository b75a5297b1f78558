// The one rewrite that makes a hint's commands run as typed: this run's --profile / --base-url,
// quoted for a shell, in every `svc …` command in backticks (runtime/hint-command.ts).
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellWord, withTarget } from '../../src/runtime/hint-command.js';

describe('withTarget', () => {
  it('adds the target options to each `svc …` command, in order, and nothing without a target', () => {
    expect(withTarget('see `svc balance`; then `svc transfer ls`', { profile: 'work' })).toBe('see `svc --profile work balance`; then `svc --profile work transfer ls`');
    expect(withTarget('`svc balance`', { profile: 'w', baseUrl: 'http://127.0.0.1:8080' })).toBe('`svc --profile w --base-url http://127.0.0.1:8080 balance`');
    expect(withTarget('see `svc balance`', {})).toBe('see `svc balance`');
  });

  it("leaves a command that names its own profile (another principal's), and the targetless nouns", () => {
    const owner = 'the owner runs `svc --profile <owner-profile> pending ls`';
    expect(withTarget(owner, { profile: 'bot' })).toBe(owner);
    expect(withTarget('save one with `svc profile add <name>`', { profile: 'bot' })).toBe('save one with `svc profile add <name>`');
    expect(withTarget('text without commands, svc balance unquoted', { profile: 'bot' })).toBe('text without commands, svc balance unquoted');
  });

  it('a `svc sandbox …` command takes the profile that acts on the sandbox; `sandbox start` never a --base-url (issue 36)', () => {
    // --profile names one of yours (sandboxProfile null): `sandbox start` would refuse it, the admin commands could not use it.
    expect(withTarget('start it with `svc sandbox start`; then `svc balance`', { profile: 'mine', sandboxProfile: null }))
      .toBe('start it with `svc sandbox start`; then `svc --profile mine balance`');
    // The sandbox's own, one that follows it, or one that does not exist yet: as typed.
    expect(withTarget('`svc sandbox start`', { profile: 'bot', sandboxProfile: 'bot' })).toBe('`svc --profile bot sandbox start`');
    // `sandbox start` listens where --port says: a --base-url (`svc --base-url https://api.example.com sandbox start`) is never added.
    expect(withTarget('start it with `svc sandbox start`', { baseUrl: 'https://api.example.com' })).toBe('start it with `svc sandbox start`');
    expect(withTarget('`svc sandbox fund @bob 1`', { baseUrl: 'http://127.0.0.1:5555' })).toBe('`svc --base-url http://127.0.0.1:5555 sandbox fund @bob 1`');
  });

  it('quotes a name for a POSIX shell: spaces, quotes, $ and backquotes come back as typed', () => {
    for (const name of ['my work', "it's", 'a"b', '$HOME', 'x`id`', 'semi;colon', '-dash', '']) {
      const word = shellWord(name);
      expect(execFileSync('sh', ['-c', `printf %s ${word}`], { encoding: 'utf8' })).toBe(name);
    }
    expect(shellWord('plain-name_1.2')).toBe('plain-name_1.2');
  });
});
