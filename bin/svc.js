#!/usr/bin/env node
// Shim: answer --version before loading anything else, then hand over to the built program
// (the bundle when it was built, else the per-module output of tsc).
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  let entry;
  try {
    entry = await import('../dist/bundle/svc.js');
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/bundle/svc.js')) throw err;
    entry = await import('../dist/main.js');
  }
  process.exitCode = await entry.run(argv);
}
