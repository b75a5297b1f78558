// scripts/check-cycles.mjs (run by `npm test`) on small trees: it must see the cycles it exists for.
import { describe, expect, it } from 'vitest';
import { checkTree } from './tree.js';

const check = (files: Record<string, string>) => checkTree('check-cycles.mjs', files);

describe('check-cycles', () => {
  it('passes a tree without cycles (lazy import() does not count)', () => {
    const r = check({ 'a.ts': "import { b } from './b.js';\nexport const a = () => import('./c.js');\n", 'b.ts': 'export const b = 1;\n', 'c.ts': "import { a } from './a.js';\n" });
    expect(r.out).toContain('no import cycles among 3 modules');
    expect(r.code).toBe(0);
  });

  it('fails on two sibling folders that import each other, though no module cycle exists', () => {
    const r = check({
      'commands/agent/check.ts': "import { preview } from '../transfer/preview.js';\nexport const check = preview;\n",
      'commands/transfer/preview.ts': "import { view } from '../agent/view.js';\nexport const preview = view;\n",
      'commands/agent/view.ts': 'export const view = 1;\n',
    });
    expect(r.code).toBe(1);
    expect(r.out).not.toContain('import cycles in');
    expect(r.out).toContain('folders that import each other: src/commands/agent <-> src/commands/transfer');
    expect(r.out).toContain('src/commands/transfer/preview.ts -> src/commands/agent/view.ts');
  });

  it('fails on an import up the layers, or across peers of one rank', () => {
    const r = check({
      'cli/program.ts': "import { verb } from '../commands/noun/verb.js';\nexport const program = verb;\n",
      'commands/noun/verb.ts': "import type { Flags } from '../../cli/flags.js';\nimport { rule } from '../../domain/rule.js';\nexport const verb = rule;\nexport type V = Flags;\n",
      'cli/flags.ts': 'export type Flags = string;\n',
      'config/store.ts': "import { maskKey } from '../crypto/mask.js';\nexport const store = maskKey;\n",
      'crypto/mask.ts': 'export const maskKey = 1;\n',
      'domain/rule.ts': 'export const rule = 1;\n',
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain('src/commands/noun/verb.ts -> src/cli/flags.ts (commands may not import cli)');
    expect(r.out).toContain('src/config/store.ts -> src/crypto/mask.ts (config may not import crypto)');
    expect(r.out).not.toContain('domain/rule.ts (');
  });

  it('fails on a cycle through a sub-folder, type-only imports and re-exports included, naming the files', () => {
    const r = check({
      'a.ts': "import type { B } from './x/b.js';\nexport type A = B;\n",
      'x/b.ts': "export * from '../c.js';\nexport type B = number;\n",
      'c.ts': "import {\n  type A,\n} from './a.js';\nexport type C = A;\n",
      'd.ts': "import { e } from './e.js';\n",
      'e.ts': 'export const e = 1;\n',
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain('import cycles in src/ (1)');
    expect(r.out).toContain('src/a.ts <-> src/c.ts <-> src/x/b.ts');
    expect(r.out).not.toContain('d.ts');
  });
});
