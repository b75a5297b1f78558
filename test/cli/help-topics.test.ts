// `svc help exit-codes`, `svc help environment` and the top-level help's way in: each topic is
// printed from its one source (the exit map in src/errors.ts; the ENVIRONMENT list, which must
// name every variable src reads or sets).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentNames } from '../../src/cli/help-topics.js';
import { EXIT_CODE_MEANING, ExitCode } from '../../src/errors.js';
import { runCli } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.ts$/.test(name) ? [path] : [];
  });
}

/**
 * Every environment variable the source reads or sets: `env.X`, `env['X']`, `env(vars, 'X')`,
 * `fromEnv('X')`, and names written out as strings (lists of variables: SVC_*, NODE_*, XDG_*,
 * the proxy variables).
 */
function variablesInSource(text: string): Set<string> {
  const found = new Set<string>();
  const patterns = [
    /\benv\??\.([A-Z][A-Z0-9_]*)\b/g,
    /\benv\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\]/g,
    /\b(?:fromEnv|env)\(\s*(?:\w+\s*,\s*)?['"`]([A-Z][A-Z0-9_]*)['"`]/g,
    /['"`]((?:SVC|NODE|XDG)_[A-Z0-9_]+|(?:HTTPS?|NO|ALL)_PROXY)['"`]/g,
  ];
  for (const p of patterns) for (const m of text.matchAll(p)) found.add(m[1]!);
  return found;
}

describe('svc help exit-codes', () => {
  it('prints every exit code of the one map with its meaning, on stdout, exit 0', async () => {
    const r = await runCli(['help', 'exit-codes']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const codes = Object.values(ExitCode);
    expect(codes.length).toBeGreaterThan(8);
    for (const [name, code] of Object.entries(ExitCode)) {
      // The meaning may wrap: compare with runs of spaces and line breaks made one space.
      const flat = r.stdout.replace(/\s+/g, ' ');
      expect(flat, name).toContain(` ${code} ${EXIT_CODE_MEANING[name as keyof typeof ExitCode]}`);
    }
    // docs/exit-codes.md's table lists the same codes as the map (neither can drift alone).
    const doc = readFileSync(join(ROOT, 'docs/exit-codes.md'), 'utf8');
    const table = [...doc.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(table).toEqual([...codes].sort((a, b) => a - b));
    // Both topics fit 80 columns when piped.
    for (const topic of ['exit-codes', 'environment']) {
      const t = await runCli(['help', topic], { columns: 200 });
      expect(t.stdout.split('\n').filter((l) => l.length > 80), topic).toEqual([]);
    }
  });
});

describe('svc help environment', () => {
  it('lists every environment variable src and bin read or set', async () => {
    const inSource = new Set<string>();
    // src/, and bin/ (the shim and the bundle loader read a few before the program starts).
    const bin = readdirSync(join(ROOT, 'bin')).filter((f) => f.endsWith('.js')).map((f) => join(ROOT, 'bin', f));
    for (const file of [...sourceFiles(join(ROOT, 'src')), ...bin]) for (const v of variablesInSource(readFileSync(file, 'utf8'))) inSource.add(v);
    // The scan sees each way a variable is read, and finds what it must (it is not vacuous).
    const seen = variablesInSource(`a = env.ONE; b = ctx.env['TWO']; c = env(vars, 'THREE'); d = fromEnv('FOUR'); const L = ['SVC_FIVE', 'ALL_PROXY']; e = 'ECONNREFUSED_PROXY';`);
    expect([...seen].sort()).toEqual(['ALL_PROXY', 'FOUR', 'ONE', 'SVC_FIVE', 'THREE', 'TWO']);
    expect([...inSource]).toEqual(expect.arrayContaining(['SVC_API_KEY', 'SVC_PROFILE', 'SVC_CONFIG_DIR', 'NO_PROXY', 'HTTPS_PROXY', 'NODE_EXTRA_CA_CERTS', 'NO_COLOR', 'SVC_TRANSACTION_ID']));
    const r = await runCli(['help', 'environment']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const listed = new Set(environmentNames());
    const missing = [...inSource].filter((v) => !listed.has(v) || !new RegExp(`\\b${v}\\b`).test(r.stdout));
    expect(missing, 'add them to ENVIRONMENT in src/cli/help-topics.ts').toEqual([]);
  });
});

describe('svc help', () => {
  it('alone prints the top-level help, with a first session and the help topics', async () => {
    const r = await runCli(['help']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^Usage: svc \[options\] \[command\]/);
    expect(r.stdout).toMatch(/^Get started .*:$/m);
    expect(r.stdout).toContain('$ svc sandbox start');
    expect(r.stdout).toContain('$ svc transfer send @acme 1');
    expect(r.stdout).toContain('svc help exit-codes');
    expect(r.stdout).toContain('svc help environment');
    expect((await runCli(['--help'])).stdout).toBe(r.stdout);
  });

  it('an unknown topic is a usage error (exit 2) that lists the topics, nothing on stdout', async () => {
    const r = await runCli(['help', 'exit-code']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: unknown command or help topic "exit-code" \(topics: environment, exit-codes\) \(usage\)$/m);
    const json = await runCli(['--json', 'help', 'nope']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'usage' } });
  });
});
