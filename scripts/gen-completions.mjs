#!/usr/bin/env node
// Regenerates completions/ from the built program: `node bin/svc.js completion <shell>`.
// Run after `npm run build` (npm run completions does both). With --check it changes nothing
// and exits 1 when a committed script is out of date.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const targets = { bash: 'completions/svc.bash', zsh: 'completions/_svc', fish: 'completions/svc.fish' };
const check = process.argv.includes('--check');
let stale = 0;

for (const [shell, file] of Object.entries(targets)) {
  const script = execFileSync(process.execPath, [join(root, 'bin/svc.js'), 'completion', shell], {
    encoding: 'utf8',
    // The script must not depend on who generates it.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' },
  });
  const path = join(root, file);
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // not generated yet
  }
  if (current === script) {
    console.log(`${file}: up to date`);
  } else if (check) {
    console.error(`${file}: out of date (run \`npm run completions\`)`);
    stale++;
  } else {
    writeFileSync(path, script);
    console.log(`${file}: written`);
  }
}
process.exitCode = stale ? 1 : 0;
