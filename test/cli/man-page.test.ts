// The man page: man/svc.1 is generated from the program (src/cli/man-page.ts) and must equal what
// the built `svc __man` prints now (else `npm run man`); real groff renders it without a warning
// and `man -l` shows every command; every doc the help or the page names exists in docs/.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { allCommands, buildProgram } from '../../src/cli/program.js';
import { commandPaths, generateManPage, roffText } from '../../src/cli/man-page.js';
import { exitCodes, environmentNames } from '../../src/cli/help-topics.js';
import { createStreams } from '../../src/io/streams.js';
import { runCli } from '../helpers/cli.js';
import { hasTool } from '../helpers/tools.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/svc.js');
const PAGE = join(ROOT, 'man/svc.1');

function realProgram(): Command {
  const io = createStreams({ tty: { stdin: false, stdout: false, stderr: false }, env: {} });
  return buildProgram({ factory: () => { throw new Error('no command runs here'); }, io });
}

/** `man -l` of the committed page at 80 columns, plain text. */
function renderedByMan(): string {
  const r = spawnSync('man', ['-l', PAGE], { encoding: 'utf8', env: { PATH: process.env.PATH, MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat', LANG: 'C.UTF-8' } });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return r.stdout.replace(/.\x08/g, '');
}

describe('man/svc.1', () => {
  it('equals what `svc __man` prints now, and the source tree agrees (else run `npm run man`)', () => {
    const r = spawnSync(process.execPath, [BIN, '__man'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(existsSync(PAGE), 'man/svc.1 is missing: run `npm run man`').toBe(true);
    expect(readFileSync(PAGE, 'utf8'), 'man/svc.1 is out of date: run `npm run man`').toBe(r.stdout);
    expect(generateManPage(realProgram())).toBe(r.stdout);
    // The check script agrees.
    const check = spawnSync(process.execPath, [join(ROOT, 'scripts/gen-man.mjs'), '--check'], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
  });

  it('is a pure function of the program: no date, no path, no terminal width', () => {
    const page = generateManPage(realProgram());
    expect(page).toBe(generateManPage(realProgram()));
    expect(page).not.toContain(ROOT);
    expect(page).toMatch(/^\.TH SVC 1 "" "svc [^"]+" "User Commands"$/m);
    // What roff would read as a request, an escape or a special character is escaped.
    expect(roffText('.start\n\'quote\\ --flag ✓')).toBe('\\&.start\n\\&\'quote\\e \\-\\-flag \\[u2713]');
  });

  it.skipIf(!hasTool('groff'))('groff renders it with every warning on and says nothing', () => {
    const r = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', PAGE], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });

  it.skipIf(!hasTool('man'))('`man -l man/svc.1` names every command, option, exit code and environment variable', () => {
    const text = renderedByMan();
    const program = realProgram();
    const paths = commandPaths(program);
    expect(paths).toEqual(expect.arrayContaining(['transfer send', 'sandbox key create', 'agent policy set', 'help']));
    for (const path of paths) expect(text, `svc ${path}`).toContain(`svc ${path}`);
    for (const cmd of [program, ...allCommands(program)]) {
      if ((cmd as unknown as { _hidden?: boolean })._hidden) continue;
      for (const o of cmd.options) if (!o.hidden) expect(text, `${cmd.name()} ${o.flags}`).toContain(o.flags);
    }
    for (const { code } of exitCodes()) expect(text).toMatch(new RegExp(`^ {7}${code}\\b`, 'm'));
    for (const name of environmentNames()) expect(text).toContain(name);
    expect(text).toContain('SEE ALSO');
    // An 80-column man shows no line wider than 80 (examples are broken with backslashes).
    expect(text.split('\n').filter((l) => l.length > 80)).toEqual([]);
  });
});

describe('docs named by the help and the man page', () => {
  it('every docs/*.md named in any --help, help topic or the man page exists (docs/ ships in the package)', async () => {
    const program = realProgram();
    const texts = [readFileSync(PAGE, 'utf8').replace(/\\-/g, '-')];
    for (const path of [[], ...commandPaths(program).map((p) => p.split(' '))]) texts.push((await runCli([...path, '--help'])).stdout);
    for (const topic of ['exit-codes', 'environment']) texts.push((await runCli(['help', topic])).stdout);
    const named = new Set(texts.flatMap((t) => [...t.matchAll(/docs\/([\w-]+\.md)/g)].map((m) => m[1]!)));
    // The page's SEE ALSO names guides without the folder.
    for (const m of texts[0]!.matchAll(/\b([a-z-]+\.md)\b/g)) named.add(m[1]!);
    expect(named.size).toBeGreaterThan(5);
    for (const doc of named) expect(existsSync(join(ROOT, 'docs', doc)), `docs/${doc}`).toBe(true);
    // The top-level help says where the guides are and that there is a manual.
    expect(texts[1]!.replace(/\s+/g, ' ')).toMatch(/Guides: the docs\/ folder of the installed package/);
    expect(texts[1]!.replace(/\s+/g, ' ')).toMatch(/Manual: man svc\./);
  });
});
