#!/usr/bin/env node
// Shim: refuse a Node older than svc supports before anything else loads, then hand over to the
// bundle (dist/bundle/, built by `npm run build` and by `prepack`): the only program the package
// ships. Plain JavaScript old Node versions still parse.
'use strict';
// CommonJS (bin/package.json), as the bundle is: a program whose files are all CommonJS never
// starts Node's ES module loader, whose own modules cost 4 ms (Node 22) to 25 ms (Node 20) of CPU.
const { nodeTooOld } = require('./check-node.js');

const tooOld = nodeTooOld(process.versions.node);
if (tooOld) {
  process.stderr.write(tooOld);
  process.exit(1);
}

const argv = process.argv.slice(2);
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const bundle = join(__dirname, '..', 'dist', 'bundle');
if (!existsSync(join(bundle, 'svc.cjs'))) {
  // A package packed without building, or a checkout before `npm run build`: say so, rather than
  // answer --version as if all were well and fail on the first real command.
  process.stderr.write('svc: this installation is incomplete (dist/bundle/svc.cjs is missing): reinstall svc, or in a checkout run `npm run build`\n');
  process.exit(1);
}
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // The version baked into the bundle at build (src/version.ts), from its own small entry: fast,
  // and it is the version of the code that runs.
  process.stdout.write(`${require(join(bundle, 'version.cjs')).VERSION}\n`);
} else {
  // Node 20: one process, a few requests: undici's HTTP parser (WebAssembly) would be re-compiled
  // by the optimising tier in the background, which costs ~35 MB and doubles the time of a
  // command. Node 22 and later tier up only what runs hot: the flag changes neither time nor
  // memory there, and node:v8 is three more of Node's modules to load (docs/performance-startup.md). The
  // sandbox (`sandbox start`) serves thousands of requests and keeps the optimising tier; the other
  // sandbox commands (stop, fund, key ...) make a request or two like any command.
  // The bundle with a code cache of its own (bundle-loader.js says why, and where it is kept).
  const { codeCacheDir, commandKey, loadBundle } = require('./bundle-loader.js');
  const liftoff = Number(process.versions.node.split('.')[0]) < 22 && commandKey(argv) !== 'sandbox.start';
  if (liftoff) require('node:v8').setFlagsFromString('--liftoff-only');
  const debug = process.env.SVC_DEBUG_CODE_CACHE;
  const entry = loadBundle({
    dir: bundle,
    entry: 'svc.cjs',
    cacheRoot: codeCacheDir(process.env),
    command: commandKey(argv),
    flags: liftoff ? 'liftoff' : '', // V8 refuses a cache made under other flags: one directory each
    log: debug ? (line) => require('node:fs').appendFileSync(debug, `${line}\n`) : undefined,
  });
  entry.run(argv).then((code) => {
    process.exitCode = code;
  });
}
