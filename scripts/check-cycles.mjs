// Fails `npm test` when the imports of src/ stop pointing one way. Every static import and
// re-export counts, type-only ones too (a type cycle still ties two layers together); lazy
// import() calls do not (they load on demand, after both modules are initialised). Three rules:
//   1. no cycle between modules;
//   2. no cycle between folders: inside every folder, the graph of its sub-folders (a file of
//      one importing a file of another) has no cycle, so `commands/agent` and `commands/transfer`
//      cannot lean on each other;
//   3. the top-level layers below are ordered: a module imports only its own top-level folder
//      or a layer below it, never a peer of its own rank (config, crypto and io stay apart).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** The top-level entries of src/ from the top down; an entry not named here has no rank. */
export const LAYERS = [
  ['main'],
  ['cli'],
  ['commands'],
  ['core'],
  ['runtime'],
  ['sandbox'],
  ['api'],
  ['config', 'crypto', 'io'],
  ['domain'],
  ['clock', 'errors', 'lifecycle', 'version'],
];

// An argument names another tree (the test of this script uses one).
const SRC = resolve(process.argv[2] ?? join(import.meta.dirname, '..', 'src'));
const ROOT = dirname(SRC);
const files = readdirSync(SRC, { recursive: true }).map(String).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).map((f) => join(SRC, f));
const IMPORT = /^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm;
const known = new Set(files);

const graph = new Map();
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const deps = new Set();
  for (const m of text.matchAll(IMPORT)) deps.add(resolve(dirname(file), m[1].replace(/\.js$/, '.ts')));
  graph.set(file, [...deps].filter((d) => known.has(d)));
}
const show = (f) => relative(ROOT, f);
const problems = [];

// ---- 1. module cycles (Tarjan's strongly connected components) ----------------------------------

function stronglyConnected(nodes, edgesOf) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (v) => {
    state.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of edgesOf(v)) {
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
      if (component.length > 1 || edgesOf(v).includes(v)) found.push(component);
    }
  };
  for (const n of nodes) if (!state.has(n)) visit(n);
  return found;
}

const cycles = stronglyConnected(files, (f) => graph.get(f) ?? []);
if (cycles.length) {
  problems.push(`import cycles in ${show(SRC)}/ (${cycles.length}):`);
  for (const c of cycles) problems.push(`  ${c.map(show).sort().join(' <-> ')}`);
}

// ---- 2. folder cycles, at every level -----------------------------------------------------------

/** The child of `folder` that holds `file` when it is in a sub-folder of it, else undefined. */
function subFolderOf(folder, file) {
  const rel = relative(folder, file);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(sep);
  return parts.length > 1 ? join(folder, parts[0]) : undefined;
}
const folders = new Set([SRC, ...files.map((f) => dirname(f))].flatMap((d) => {
  const out = [];
  for (let p = d; p.startsWith(SRC); p = dirname(p)) out.push(p);
  return out;
}));
for (const folder of [...folders].sort()) {
  const edges = new Map();
  const why = new Map();
  for (const [from, deps] of graph) {
    const a = subFolderOf(folder, from);
    if (!a) continue;
    for (const to of deps) {
      const b = subFolderOf(folder, to);
      if (!b || a === b) continue;
      if (!edges.has(a)) edges.set(a, new Set());
      edges.get(a).add(b);
      if (!why.has(`${a}>${b}`)) why.set(`${a}>${b}`, `${show(from)} -> ${show(to)}`);
    }
  }
  for (const c of stronglyConnected([...edges.keys()], (n) => [...(edges.get(n) ?? [])])) {
    const names = c.map(show).sort();
    const examples = c.flatMap((a) => c.filter((b) => edges.get(a)?.has(b)).map((b) => why.get(`${a}>${b}`)));
    problems.push(`folders that import each other: ${names.join(' <-> ')} (${examples.join('; ')})`);
  }
}

// ---- 3. layers ----------------------------------------------------------------------------------

const rankOf = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, LAYERS.length - i])));
const topOf = (f) => relative(SRC, f).split(sep)[0].replace(/\.ts$/, '');
const upward = [];
for (const [from, deps] of graph) {
  const a = topOf(from);
  for (const to of deps) {
    const b = topOf(to);
    if (a === b || !rankOf.has(a) || !rankOf.has(b)) continue;
    if (rankOf.get(b) >= rankOf.get(a)) upward.push(`  ${show(from)} -> ${show(to)} (${a} may not import ${b})`);
  }
}
if (upward.length) problems.push(`imports against the layers (${LAYERS.map((l) => l.join('|')).join(' > ')}):`, ...upward.sort());

if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`no import cycles among ${files.length} modules in ${show(SRC)}/; folders and layers point one way`);
