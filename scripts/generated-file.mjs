// A file generated from the built program (`node bin/svc.js <args>`) and committed: written
// again, or with --check compared and reported stale. Shared by gen-completions, gen-man and gen-openapi.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const checking = process.argv.includes('--check');

/** Regenerates `file` (relative to the checkout) from `svc <args>`; returns false when --check finds it stale. */
export function syncGenerated(file, args, regenerate) {
  const text = execFileSync(process.execPath, [join(root, 'bin/svc.js'), ...args], {
    encoding: 'utf8',
    // The file must not depend on who generates it, nor on their terminal.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' },
  });
  return syncText(file, text, regenerate);
}

/** Writes `text` to `file` (relative to the checkout) unless it already holds it; with --check, returns false when it does not. */
export function syncText(file, text, regenerate) {
  const path = join(root, file);
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // not generated yet
  }
  if (current === text) {
    console.log(`${file}: up to date`);
    return true;
  }
  if (checking) {
    console.error(`${file}: out of date (run \`${regenerate}\`)`);
    return false;
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(`${file}: written`);
  return true;
}
