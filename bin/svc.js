#!/usr/bin/env node
// Shim: answer --version before loading anything else, then hand over to dist/main.js.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  const { run } = await import('../dist/main.js');
  process.exitCode = await run(argv);
}
