// Start-up of the installed tool, not the checkout: the current tree packed (`npm pack`) and
// installed into a temporary prefix (`npm install -g --prefix`), as a user gets it; each command
// against a loopback sandbox, with the checkout's own figures beside it, as ratios to `node -e 0`.
// Then the V8 start-up snapshot lever (node --build-snapshot, Node >= 20) on the installed code.
// `npm run build` first (npm run bench does). BENCH_KEEP_PREFIX=1 keeps the prefix to look at.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT, startSandbox, withHostCa } from './lib.mjs';
import { interleaved, report } from './measure.mjs';

const dir = mkdtempSync(join(tmpdir(), 'svc-installed-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** Packs the tree and installs the tarball into <dir>/prefix; returns the installed bin/svc.js. */
function install() {
  execFileSync(npm, ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: withHostCa() });
  const tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz')));
  const prefix = join(dir, 'prefix');
  execFileSync(npm, ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', tarball], { stdio: ['ignore', 'ignore', 'inherit'], env: withHostCa() });
  const lib = process.platform === 'win32' ? join(prefix, 'node_modules') : join(prefix, 'lib', 'node_modules');
  return join(lib, ...pkg.name.split('/'), 'bin', 'svc.js');
}

const installed = install();
const sandbox = await startSandbox();
try {
  // No update check while measuring (it would start a process of its own: only on a terminal anyway).
  const env = { ...sandbox.env, SVC_NO_UPDATE_NOTIFIER: '1' };
  spawnSync(process.execPath, [installed, '--json', 'balance'], { env, stdio: 'ignore' }); // the account cache, as in startup.mjs
  const cases = [];
  for (const [what, args] of [['account', ['--json', 'account']], ['balance', ['--json', 'balance']], ['transfer ls', ['--json', 'transfer', 'ls']]]) {
    cases.push({ label: `installed: svc --json ${what}`, args: [installed, ...args], aim: '<= 2.5x' });
    cases.push({ label: `checkout: svc --json ${what}`, args: [BIN, ...args] });
  }
  report('start-up of the installed tool (npm pack + npm install -g --prefix)', interleaved(cases, env),
    `median of ${process.env.BENCH_RUNS ?? 15} interleaved runs, Node ${process.version}`);
} finally {
  await sandbox.stop();
  if (!process.env.BENCH_KEEP_PREFIX) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}
