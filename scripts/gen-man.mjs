#!/usr/bin/env node
// Regenerates man/svc.1 from the built program: `node bin/svc.js __man` (src/cli/man-page.ts).
// Run after `npm run build` (npm run man does both). With --check it changes nothing and exits 1
// when the committed page is out of date.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = 'man/svc.1';
const check = process.argv.includes('--check');

const page = execFileSync(process.execPath, [join(root, 'bin/svc.js'), '__man'], {
  encoding: 'utf8',
  // The page must not depend on who generates it, nor on their terminal.
  env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' },
});
const path = join(root, file);
let current = '';
try {
  current = readFileSync(path, 'utf8');
} catch {
  // not generated yet
}
if (current === page) {
  console.log(`${file}: up to date`);
} else if (check) {
  console.error(`${file}: out of date (run \`npm run man\`)`);
  process.exitCode = 1;
} else {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, page);
  console.log(`${file}: written`);
}
