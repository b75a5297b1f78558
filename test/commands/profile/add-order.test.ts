// Issue 36, `profile add`: what can be checked without the key is checked before a secret is asked
// for; a live key typed at the prompt without --base-url is asked its URL next (the key typed is
// not wasted on a `base_url_required`); and the hint when the key cannot be checked never starts a
// sandbox for a URL that is not on this machine.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../helpers/cli.js';
import { scriptedPrompter } from '../../helpers/prompter.js';
import { refusedPort } from '../../helpers/scripted-server.js';

const TEST_KEY = 'svc_test_Pr0fileOrderKeyAbCdEf123456';
const LIVE_KEY = 'svc_live_Pr0fileOrderKeyZyXwVu987654';

let home: string;
let dir: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'svc-add-order-'));
  dir = join(home, 'config');
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

function expectExit(r: CliResult, code: number): void {
  expect(r.code, `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(code);
}

/** On a terminal, answering the questions from a script (one more question than answers fails the command). */
function onTerminal(args: string[], answers: string[]) {
  const prompter = scriptedPrompter(answers);
  const run = runCli(args, { env: { SVC_CONFIG_DIR: dir, NO_COLOR: '1' }, tty: { stdin: true, stdout: true, stderr: true }, prompter });
  return { prompter, run };
}

describe('profile add: checks before secrets', () => {
  it('a live key typed at the prompt without --base-url: its https:// URL is asked next, and the profile is saved', async () => {
    const { prompter, run } = onTerminal(['profile', 'add', 'prod', '--no-verify'], [LIVE_KEY, 'https://live.example.com', '']);
    const r = await run;
    expectExit(r, 0);
    expect(prompter.asked).toEqual(['API key:', 'Base URL of the service for this live key (https://…):', 'Decryption key (optional, Enter to skip):']);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.prod).toEqual({ apiKey: LIVE_KEY, baseUrl: 'https://live.example.com' });
    expect(r.stderr).not.toContain(LIVE_KEY);
  });

  it('the URL given at that prompt follows the live key\'s rule (https only): refused, nothing saved', async () => {
    const { run } = onTerminal(['profile', 'add', 'prod', '--no-verify'], [LIVE_KEY, 'http://127.0.0.1:46630']);
    const r = await run;
    expectExit(r, 2);
    expect(r.stderr).toMatch(/^error: refusing to send a live API key over plain HTTP to 127\.0\.0\.1:46630 \(from the prompt\): .*; nothing was saved \(insecure_base_url\)\n/);
  });

  it('a config directory that cannot be used, a bad name or a bad --base-url: refused before the key is asked for', async () => {
    // config.json a symbolic link: unsafe_config, and no question was asked (the script has no answers).
    const elsewhere = join(home, 'elsewhere.json');
    writeFileSync(elsewhere, '{}', { mode: 0o600 });
    mkdirSync(dir, { mode: 0o700 });
    symlinkSync(elsewhere, join(dir, 'config.json'));
    const unsafe = onTerminal(['profile', 'add', 'prod'], []);
    const r = await unsafe.run;
    expectExit(r, 2);
    expect(r.stderr).toMatch(/\(unsafe_config\)\n/);
    expect(unsafe.prompter.asked).toEqual([]);
    rmSync(join(dir, 'config.json'));

    for (const [args, code] of [[['profile', 'add', 'bad name!'], 'invalid_profile_name'], [['--base-url', 'http://api.example.com', 'profile', 'add', 'x'], 'insecure_base_url']] as const) {
      const t = onTerminal([...args], []);
      const out = await t.run;
      expectExit(out, 2);
      expect(out.stderr).toContain(`(${code})`);
      expect(t.prompter.asked).toEqual([]);
    }
  });
});

describe('profile add: the hint when the key cannot be checked', () => {
  const add = (args: string[], env: Record<string, string> = {}) =>
    runCli([...args, 'profile', 'add', 'x', '--key-stdin'], { env: { SVC_CONFIG_DIR: dir, NO_COLOR: '1', ...env }, input: `${TEST_KEY}\n` });

  it('a URL that is not on this machine: check it and the network; never a sandbox start (with or without --json)', async () => {
    // The service is behind a proxy that refuses: a network failure for a URL elsewhere, whatever the network here.
    const env = { HTTPS_PROXY: `http://127.0.0.1:${await refusedPort()}` };
    const r = await add(['--base-url', 'https://api.example.com'], env);
    expectExit(r, 7);
    expect(r.stderr).toMatch(/^error: could not check the API key: .*; nothing was saved \(network_error\)\nhint: check the base URL \(https:\/\/api\.example\.com\) and your network, or save without checking with --no-verify\n$/);
    const json = await add(['--json', '--base-url', 'https://api.example.com'], env);
    expect(JSON.parse(json.stderr).error.hint).not.toMatch(/sandbox/);
  });

  it('on this machine: start the sandbox where the URL says (its port), the command as typed', async () => {
    const port = await refusedPort();
    const r = await add(['--base-url', `http://127.0.0.1:${port}`]);
    expectExit(r, 7);
    expect(r.stderr).toContain(`hint: is the sandbox running? start it with \`svc sandbox start --port ${port}\`, or save without checking with --no-verify\n`);
  });
});
