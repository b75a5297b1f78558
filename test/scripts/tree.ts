// Runs one of scripts/*.mjs on a small src/ tree written for the test: what a check must see.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../helpers/run.js';

export function checkTree(script: string, files: Record<string, string>): { code: number | null; out: string } {
  const dir = join(mkdtempSync(join(tmpdir(), 'svc-tree-')), 'src');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', script), dir], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}
