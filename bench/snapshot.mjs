// The V8 start-up snapshot lever: the CLI bundled as one CommonJS script (every lazy command
// inlined: a snapshot entry cannot load other files), run once by `node --build-snapshot` so its
// module top-levels are already evaluated in the heap, then started with `--snapshot-blob`.
// Measured against the shipped bundle (bin/svc.js) on the same commands. Node >= 20.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { BIN, ROOT, startSandbox } from './lib.mjs';
import { interleaved, report } from './measure.mjs';

const dir = mkdtempSync(join(tmpdir(), 'svc-snapshot-'));
const entry = join(dir, 'entry.cjs');
const blob = join(dir, 'svc.blob');
const liftoffBlob = join(dir, 'svc-liftoff.blob'); // a blob runs only under the V8 flags it was built with
await build({
  stdin: {
    contents: `import { run } from ${JSON.stringify(join(ROOT, 'src/main.ts'))};
      import { startupSnapshot } from 'node:v8';
      startupSnapshot.setDeserializeMainFunction(() => { run(process.argv.slice(2)).then((code) => { process.exitCode = code; }); });`,
    resolveDir: ROOT,
    loader: 'ts',
  },
  outfile: entry,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  minifySyntax: true,
  external: ['libsql'],
  define: { 'import.meta.url': '__svcUrl', 'import.meta.dirname': '__dirname' },
  banner: { js: "const __svcUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'error',
});
const built = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', entry], { stdio: ['ignore', 'inherit', 'inherit'] });
if (built.status !== 0) throw new Error(`--build-snapshot exited ${built.status}`);
const builtLiftoff = spawnSync(process.execPath, ['--liftoff-only', '--snapshot-blob', liftoffBlob, '--build-snapshot', entry], { stdio: ['ignore', 'inherit', 'inherit'] });
if (builtLiftoff.status !== 0) throw new Error(`--build-snapshot --liftoff-only exited ${builtLiftoff.status}`);

const sandbox = await startSandbox();
try {
  const env = { ...sandbox.env, SVC_NO_UPDATE_NOTIFIER: '1' };
  spawnSync(process.execPath, [BIN, '--json', 'balance'], { env, stdio: 'ignore' });
  const check = spawnSync(process.execPath, ['--snapshot-blob', blob, 'svc', '--json', 'account'], { env, encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`the snapshot did not run a command: ${check.status} ${check.stderr}`);
  const cases = [];
  for (const [what, args] of [['account', ['--json', 'account']], ['balance', ['--json', 'balance']], ['transfer ls', ['--json', 'transfer', 'ls']]]) {
    cases.push({ label: `bundle: svc --json ${what}`, args: [BIN, ...args] });
    cases.push({ label: `snapshot: svc --json ${what}`, args: ['--snapshot-blob', blob, 'svc', ...args], noRss: true });
    // bin/svc.js's V8 flag (undici's WebAssembly parser compiled by the baseline tier only), given on the command line.
    cases.push({ label: `snapshot + --liftoff-only: svc --json ${what}`, args: ['--liftoff-only', '--snapshot-blob', liftoffBlob, 'svc', ...args], noRss: true });
  }
  report('start-up with a V8 snapshot (node --build-snapshot) vs the shipped bundle', interleaved(cases, env),
    `median of ${process.env.BENCH_RUNS ?? 15} interleaved runs, Node ${process.version}`);
} finally {
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
}
