// SLOW (~30-60 s, needs the npm registry for libsql): the package as a user gets it. In a clean
// copy of the checkout (the files git knows, no dist/), the README's Install commands are run as
// written (`npm pack`, then `npm install -g ./<tarball>`; npm's prefix pointed at a temporary
// directory), and the installed `svc` runs --version, --help, a sandbox and a transfer. SVC_SMOKE_NODE=/path/to/node runs the
// installed tool on that Node (.ci/run does so for Node 22 and 24); packing stays on this one.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSandboxProcess, type SandboxProcess } from '../helpers/spawn-sandbox.mjs';
import { ROOT } from '../helpers/run.js';

const NODE = process.env.SVC_SMOKE_NODE || process.execPath;
const NODE_VERSION = spawnSync(NODE, ['--version'], { encoding: 'utf8' }).stdout.trim();
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const work = mkdtempSync(join(tmpdir(), 'svc-install-'));
const prefix = join(work, 'prefix');
const installed = join(prefix, 'lib/node_modules', pkg.name);
const svc = join(prefix, 'bin/svc');
// The installed `svc` is found through its #!/usr/bin/env node line: NODE's directory comes first.
const env = { PATH: `${dirname(NODE)}:${process.env.PATH}`, HOME: join(work, 'home'), SVC_CONFIG_DIR: join(work, 'config'), NO_COLOR: '1' };

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(svc, args, { encoding: 'utf8', env, timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every package installed beside svc (node_modules/<name> and node_modules/@scope/<name>). */
function packages(dir: string): string[] {
  const found: string[] = [];
  const walk = (nm: string) => {
    for (const name of readdirSync(nm, { withFileTypes: true }).map((d) => d.name)) {
      if (name.startsWith('.')) continue;
      if (name.startsWith('@')) for (const sub of readdirSync(join(nm, name))) found.push(`${name}/${sub}`);
      else found.push(name);
    }
  };
  try { walk(join(dir, 'node_modules')); } catch { /* none */ }
  return found;
}

function bytes(path: string): number {
  const st = lstatSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((n, e) => n + bytes(join(path, e)), 0);
}

let sandbox: SandboxProcess | undefined;
beforeAll(() => {
  // A clean clone: what git tracks (and new files it does not ignore), without dist/ or node_modules;
  // the checkout's node_modules lends the build tools that `prepack` needs.
  const src = join(work, 'src');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter((f) => f && !/^(node_modules|dist)(\/|$)/.test(f));
  for (const f of files) {
    try { lstatSync(join(ROOT, f)); } catch { continue; } // deleted in the work tree
    mkdirSync(dirname(join(src, f)), { recursive: true });
    cpSync(join(ROOT, f), join(src, f));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules')); // the README: "after its npm ci"
  for (const command of readmeInstall()) {
    execFileSync('sh', ['-c', command], {
      cwd: src, stdio: ['ignore', 'pipe', 'pipe'],
      // `-g` into a prefix of the test's own; no audit or funding chatter.
      env: { ...process.env, ...hostCa(), npm_config_prefix: prefix, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_loglevel: 'error' },
    });
  }
}, 300_000);

/** The host's NODE_EXTRA_CA_CERTS, which test/global-setup.ts takes from the suite, for npm's way to the registry. */
function hostCa(): { NODE_EXTRA_CA_CERTS?: string } {
  const ca = process.env.SVC_TEST_HOST_NODE_EXTRA_CA_CERTS;
  return ca === undefined ? {} : { NODE_EXTRA_CA_CERTS: ca };
}

/** The README's Install commands, as written (comments dropped); their tarball is this version's. */
function readmeInstall(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /## Install\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no Install block");
  const commands = block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);
  const tarball = `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`;
  expect(commands).toEqual(['npm pack', `npm install -g ./${tarball}`]);
  return commands;
}

afterAll(async () => {
  await sandbox?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe(`the packed and installed tool (on Node ${NODE_VERSION})`, () => {
  it('runs on the Node under test', () => {
    expect(spawnSync('node', ['--version'], { encoding: 'utf8', env }).stdout.trim()).toBe(NODE_VERSION);
  });

  it('ships the bundle as its one program, and few dependencies', () => {
    expect(readdirSync(join(installed, 'dist'))).toEqual(['bundle']);
    expect(readdirSync(installed).sort()).toEqual(['LICENSE', 'README.md', 'bin', 'completions', 'dist', 'docs', 'man', 'node_modules', 'package.json']);
    // `man svc` after a global install: npm links the page into the prefix's man path.
    expect(realpathSync(join(prefix, 'share/man/man1/svc.1'))).toBe(join(installed, 'man/svc.1'));
    // Every doc the help names is in the package (docs/ shipped, not only linked).
    expect(readdirSync(join(installed, 'docs'))).toContain('exit-codes.md');
    const deps = packages(installed);
    expect(deps).toContain('libsql');
    expect(deps.length, deps.join(' ')).toBeLessThanOrEqual(10);
    expect(bytes(installed)).toBeLessThanOrEqual(25 * 1024 * 1024);
    expect(realpathSync(svc)).toBe(join(installed, 'bin/svc.js'));
  });

  it('svc --version and svc --help', () => {
    expect(run(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    const help = run(['--help']);
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: svc /);
    expect(help.stdout).toContain('sandbox');
  });

  it('a sandbox, and a transfer against it followed to confirmation', async () => {
    sandbox = await spawnSandboxProcess(svc, ['sandbox', 'start', '--port', '0', '--ephemeral'], env, { node: null });
    const sent = run(['transfer', 'send', '@acme', '1', '--wait']);
    expect(sent.stderr).not.toMatch(/error/i);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/confirmed/);
    // On a terminal the list is a table: its layout libraries load from the installed files alone
    // (they once were required from a node_modules only a checkout has). `script` gives it a terminal.
    const table = spawnSync('script', ['-qec', `${svc} transfer ls`, '/dev/null'], { encoding: 'utf8', env: { ...env, TERM: 'xterm', COLUMNS: '120' }, timeout: 30_000 });
    expect(table.stdout).not.toMatch(/error/i);
    expect(table.stdout).toMatch(/^ID +STATUS /m);
    expect(table.stdout).toMatch(/@acme/);
    expect(await sandbox.stop()).toBe(0);
    sandbox = undefined;
  }, 60_000);

  it("keeps the code it compiled in the user's own cache directory, and starts from it the next time", () => {
    // bin/bundle-loader.js: $HOME/.cache/svc/code-cache/<build>/<node>-<arch>, the directory 0700.
    const log = join(work, 'code-cache.log');
    const logged = (args: string[]) => {
      rmSync(log, { force: true });
      const r = spawnSync(svc, args, { encoding: 'utf8', env: { ...env, SVC_DEBUG_CODE_CACHE: log }, timeout: 30_000 });
      expect(r.status, r.stderr).toBe(0);
      return readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('load ')).map((l) => l.split(' ')[2]);
    };
    logged(['profile', 'ls']);
    const again = logged(['profile', 'ls']);
    expect(again.length).toBeGreaterThan(0);
    expect(new Set(again)).toEqual(new Set(['accepted']));
    const root = join(env.HOME, '.cache', 'svc', 'code-cache');
    expect(statSync(root).mode & 0o777).toBe(0o700);
    const build = readFileSync(join(installed, 'dist', 'bundle', 'build-id'), 'utf8').trim();
    const nodeVersion = spawnSync(NODE, ['-p', '`${process.version}-${process.arch}`'], { encoding: 'utf8' }).stdout.trim();
    const [dir] = readdirSync(join(root, build));
    expect(dir).toMatch(new RegExp(`^${nodeVersion}(-liftoff)?$`)); // -liftoff: Node 20, where bin/svc.js sets that V8 flag
    expect(readdirSync(join(root, build, dir!))).toContain('svc.cjs');
  });

  it('a long list decrypted on worker threads (their code runs from the installed files alone)', async () => {
    sandbox = await spawnSandboxProcess(svc, ['sandbox', 'start', '--port', '0', '--ephemeral'], env, { node: null });
    // Past WORKERS_AFTER (1,000) rows with more pages to come: 1,150 transfers of one minor unit.
    const { apiKey } = (JSON.parse(readFileSync(join(env.SVC_CONFIG_DIR, 'config.json'), 'utf8')) as { profiles: { sandbox: { apiKey: string } } }).profiles.sandbox;
    const TOTAL = 1150;
    let next = 0;
    const post = async () => {
      while (next < TOTAL) {
        const i = next++;
        const res = await fetch(`${sandbox!.url}/v1/transfers`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': `install-list-${i}` },
          body: JSON.stringify({ to: '@acme', amount: '0.000001' }),
        });
        expect(res.status).toBe(201);
        await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 8 }, post));
    const r = spawnSync(svc, ['--verbose', '--json', 'transfer', 'ls', '--all', '--decrypt'], { encoding: 'utf8', env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    expect(r.status, r.stderr.split('\n').filter((l) => !/^[<>]/.test(l)).join('\n')).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{ amount?: string }>;
    expect(list.filter((t) => t.amount === '0.000001')).toHaveLength(TOTAL);
    // Started past 1,000 rows, and ready (their code ran) before the list ended: a listing that
    // started workers waits for them to be ready or failed before it ends.
    if (availableParallelism() >= 2) expect(r.stderr).toMatch(/^opened \d+ ciphertexts on this thread and \d+ on \d+ worker threads$/m);
    expect(await sandbox.stop()).toBe(0);
    sandbox = undefined;
  }, 120_000);
});
