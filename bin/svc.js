#!/usr/bin/env node
// Shim: answer --version before loading anything else, then hand over to the built program:
// the bundle (npm run build), unless a later `tsc` left newer per-module output in dist/.
import { statSync } from 'node:fs';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  // One process, a few requests: undici's HTTP parser (WebAssembly) would be re-compiled by the
  // optimising tier in the background, which costs ~35 MB and delays exit for nothing. The
  // sandbox serves thousands of requests and keeps the optimising tier.
  if (!argv.includes('sandbox')) (await import('node:v8')).setFlagsFromString('--liftoff-only');
  // Node >= 22: cache compiled code between runs (absent on 20, where this is skipped).
  (await import('node:module')).enableCompileCache?.();
  const mtime = (rel) => statSync(new URL(rel, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1;
  const bundled = mtime('../dist/bundle/svc.js') >= mtime('../dist/main.js');
  const entry = await import(bundled ? '../dist/bundle/svc.js' : '../dist/main.js');
  process.exitCode = await entry.run(argv);
}
