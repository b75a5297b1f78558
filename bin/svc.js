#!/usr/bin/env node
// Shim: refuse a Node older than svc supports before anything else loads, then hand over to the
// bundle (dist/bundle/, built by `npm run build` and by `prepack`): the only program the package
// ships. Plain JavaScript old Node versions still parse.
import { nodeTooOld } from './check-node.js';

const tooOld = nodeTooOld(process.versions.node);
if (tooOld) {
  process.stderr.write(tooOld);
  process.exit(1);
}

const argv = process.argv.slice(2);
const bundle = (file) => new URL(`../dist/bundle/${file}`, import.meta.url);
const { existsSync } = await import('node:fs');
if (!existsSync(bundle('svc.js'))) {
  // A package packed without building, or a checkout before `npm run build`: say so, rather than
  // answer --version as if all were well and fail on the first real command.
  process.stderr.write('svc: this installation is incomplete (dist/bundle/svc.js is missing): reinstall svc, or in a checkout run `npm run build`\n');
  process.exit(1);
}
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // The version baked into the bundle at build (src/version.ts), from its own small entry: fast,
  // and it is the version of the code that runs.
  const { VERSION } = await import(bundle('version.js'));
  process.stdout.write(`${VERSION}\n`);
} else {
  // One process, a few requests: undici's HTTP parser (WebAssembly) would be re-compiled by the
  // optimising tier in the background, which costs ~35 MB and delays exit for nothing. The
  // sandbox serves thousands of requests and keeps the optimising tier.
  if (!argv.includes('sandbox')) (await import('node:v8')).setFlagsFromString('--liftoff-only');
  // Node >= 22: cache compiled code between runs (absent on 20, where this is skipped).
  (await import('node:module')).enableCompileCache?.();
  const entry = await import(bundle('svc.js'));
  process.exitCode = await entry.run(argv);
}
