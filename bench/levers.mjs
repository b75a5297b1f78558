// Each start-up lever on its own: small programs doing one GET to a loopback sandbox (bundled
// with esbuild the way the CLI ships), the zod builds, and the real CLI with and without its
// V8 flag, its code cache and its account cache. Medians of interleaved runs, as ratios to `node -e 0`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BIN, ROOT, startSandbox } from './lib.mjs';
import { interleaved, report } from './measure.mjs';

const dir = mkdtempSync(join(tmpdir(), 'svc-levers-'));
const sandbox = await startSandbox();
try {
  const url = `${sandbox.url}/_sandbox/health`;
  const programs = {
    'undici-index': `import { request } from 'undici'; const r = await request(${JSON.stringify(url)}); await r.body.text();`,
    'undici-deep': `import Agent from 'undici/lib/dispatcher/agent.js'; import request from 'undici/lib/api/api-request.js';
      const a = new Agent(); const u = new URL(${JSON.stringify(url)});
      const r = await request.call(a, { origin: u.origin, path: u.pathname, method: 'GET' }); await r.body.text(); await a.close();`,
    'node-http': `import { get } from 'node:http'; await new Promise((ok) => get(${JSON.stringify(url)}, (r) => { r.resume(); r.on('end', ok); }));`,
    'zod-classic': `import { z } from 'zod'; const S = z.looseObject({ a: z.string(), b: z.number().int().optional(), c: z.iso.datetime({ offset: true }) }); S.parse({ a: 'x', c: '2026-01-01T00:00:00Z' });`,
    'zod-mini': `import * as z from 'zod/mini'; import en from 'zod/v4/locales/en.js'; z.config(en()); const S = z.looseObject({ a: z.string(), b: z.optional(z.int()), c: z.iso.datetime({ offset: true }) }); S.parse({ a: 'x', c: '2026-01-01T00:00:00Z' });`,
    // The CLI's bundle as bin/svc.js loads it (code cache and all) but without its V8 flag, which it gives on Node 20 only.
    'svc-no-flag': `const { codeCacheDir, commandKey, loadBundle } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'bin/bundle-loader.js')).href)});
      const argv = process.argv.slice(2);
      const { run } = loadBundle({ dir: ${JSON.stringify(join(ROOT, 'dist/bundle'))}, entry: 'svc.cjs', cacheRoot: codeCacheDir(process.env), command: commandKey(argv) });
      process.exitCode = await run(argv);`,
  };
  const files = {};
  for (const [name, code] of Object.entries(programs)) {
    writeFileSync(join(dir, `${name}.mjs`), code);
    if (name === 'svc-no-flag') {
      files[name] = join(dir, `${name}.mjs`);
      continue;
    }
    await build({ entryPoints: [join(dir, `${name}.mjs`)], outfile: join(dir, `${name}.bundle.mjs`), bundle: true, format: 'esm', platform: 'node', nodePaths: [join(ROOT, 'node_modules')], logLevel: 'error',
      banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" } });
    files[name] = join(dir, `${name}.bundle.mjs`);
  }
  const env = sandbox.env;
  const { decryptionKey } = JSON.parse(readFileSync(join(env.SVC_CONFIG_DIR, 'config.json'), 'utf8')).profiles.sandbox;
  const noCache = { SVC_API_KEY: sandbox.apiKey, SVC_DECRYPTION_KEY: decryptionKey };
  const rows = interleaved([
    { label: 'GET with undici (index import)', args: [files['undici-index']] },
    { label: 'GET with undici (Agent + request only)', args: [files['undici-deep']] },
    { label: 'GET with undici (Agent + request only) + --liftoff-only', args: ['--liftoff-only', files['undici-deep']] },
    { label: 'GET with node:http (the floor)', args: [files['node-http']] },
    { label: 'zod classic: import + one schema', args: [files['zod-classic']] },
    { label: 'zod/mini: import + one schema', args: [files['zod-mini']] },
    { label: 'svc --json account', args: [BIN, '--json', 'account'] },
    { label: 'svc --json account without the V8 flag', args: [files['svc-no-flag'], '--json', 'account'] },
    { label: 'svc --json account without its code cache (NODE_DISABLE_COMPILE_CACHE)', args: [BIN, '--json', 'account'], env: { NODE_DISABLE_COMPILE_CACHE: '1' } },
    { label: 'svc --json balance (account cached)', args: [BIN, '--json', 'balance'] },
    { label: 'svc --json balance, account not cached (SVC_API_KEY)', args: [BIN, '--json', 'balance'], env: noCache },
  ], env);
  report('start-up levers, each on its own', rows, `median of ${process.env.BENCH_RUNS ?? 15} interleaved runs, Node ${process.version}; the V8 flag is bin/svc.js's --liftoff-only, given on Node 20 only`);
} finally {
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
}
