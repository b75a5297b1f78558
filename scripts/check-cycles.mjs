// Fails when the import graph of src/ has a cycle. Every static import and re-export counts,
// type-only ones too (a type cycle still ties two layers together); lazy import() calls do not
// (they load on demand, after both modules are initialised). Run by `npm test`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// An argument names another tree (the test of this script uses one).
const SRC = resolve(process.argv[2] ?? join(import.meta.dirname, '..', 'src'));
const ROOT = dirname(SRC);
const files = readdirSync(SRC, { recursive: true }).map(String).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).map((f) => join(SRC, f));
const IMPORT = /^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm;

const graph = new Map();
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const deps = new Set();
  for (const m of text.matchAll(IMPORT)) deps.add(resolve(dirname(file), m[1].replace(/\.js$/, '.ts')));
  graph.set(file, [...deps].filter((d) => graph.has(d) || files.includes(d)));
}

// Tarjan's strongly connected components: any component of two or more files is a cycle.
let index = 0;
const stack = [];
const state = new Map();
const cycles = [];
function visit(v) {
  state.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of graph.get(v) ?? []) {
    if (!state.has(w)) {
      visit(w);
      state.get(v).low = Math.min(state.get(v).low, state.get(w).low);
    } else if (state.get(w).onStack) {
      state.get(v).low = Math.min(state.get(v).low, state.get(w).index);
    }
  }
  if (state.get(v).low === state.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      state.get(w).onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component);
  }
}
for (const f of files) if (!state.has(f)) visit(f);

if (cycles.length) {
  console.error(`import cycles in ${relative(ROOT, SRC)}/ (${cycles.length}):`);
  for (const c of cycles) console.error(`  ${c.map((f) => relative(ROOT, f)).sort().join(' <-> ')}`);
  process.exit(1);
}
console.log(`no import cycles among ${files.length} modules in ${relative(ROOT, SRC)}/`);
