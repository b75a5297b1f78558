// Layers inside src/sandbox/ point one way: the HTTP pipeline and the handlers on top, then the
// operations (agents.ts, chain.ts, webhooks/ ...), the store, and the records at the bottom. This
// reads every static import (type-only ones too, as scripts/check-cycles.mjs does) and fails on
// one that points up.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/run.js';

const SANDBOX = join(ROOT, 'src/sandbox');
const IMPORT = /^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Every sandbox module (path relative to src/sandbox/) with the sandbox modules it imports. */
const imports: Array<[from: string, to: string]> = readdirSync(SANDBOX, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.ts'))
  .flatMap((f) => [...readFileSync(join(SANDBOX, f), 'utf8').matchAll(IMPORT)].map((m): [string, string] => [
    f,
    relative(SANDBOX, resolve(dirname(join(SANDBOX, f)), m[1]!.replace(/\.js$/, '.ts'))),
  ]))
  .filter(([, to]) => !to.startsWith('..'));

const isTransport = (f: string) => f === 'index.ts' || f.startsWith('http/') || f.startsWith('handlers/');

describe('layers inside src/sandbox/', () => {
  it('sees the imports it checks', () => {
    expect(imports).toContainEqual(['agents.ts', 'faults.ts']);
    expect(imports).toContainEqual(['store/store.ts', 'store/transactions.ts']);
  });

  it('nothing below the handlers imports the HTTP layer or a handler', () => {
    expect(imports.filter(([from, to]) => !isTransport(from) && isTransport(to))).toEqual([]);
  });

  it('the store imports only the store and what lies below it', () => {
    const below = ['records.ts', 'seal-contexts.ts', 'viewing.ts', 'clock.ts', 'errors.ts'];
    const upward = imports.filter(([from, to]) => from.startsWith('store/') && !to.startsWith('store/') && !to.startsWith('crypto/') && !below.includes(to));
    expect(upward).toEqual([]);
  });

  it('the records import nothing of the sandbox', () => {
    expect(imports.filter(([from]) => from === 'records.ts')).toEqual([]);
  });
});
