// The bundle's second pass (scripts/bundle.mjs runs it): rollup splits esbuild's output again, and
// writes it as CommonJS files that bin/bundle-loader.js loads with a code cache of its own.
//
// esbuild splits per set of entry points, and every lazy import is an entry point, so a command
// loaded ~50 files, most of them a few hundred bytes; each file costs its resolution, read, compile
// and link. rollup leaves out of a lazily loaded chunk what the code importing it has already
// loaded, so far fewer sets remain: `svc --json account` loads 17 files instead of 49. Tree-shaking
// is off: rollup moves code between files and changes nothing else.
//
// CommonJS, not ES modules: an ES module can only be compiled by Node's own loader, whose compile
// cache holds the code compiled before the module first runs, so every function a command calls
// was parsed and compiled again on every run (a third of svc's own start-up on Node 24). A CommonJS
// file can be compiled with vm.Script, whose cache can be made after the command ran
// (bin/bundle-loader.js). Each file is still one that Node's require() loads as it is.
import { isBuiltin } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { rollup } from 'rollup';
import { parseAst } from 'rollup/parseAst';

/**
 * Rewrites esbuild's in-memory output (`files`: absolute path -> code, entry `<outDir>/svc.js`)
 * into `outDir` as CommonJS (`svc.cjs`, `chunk-*.cjs`, ...), every file in `outDir` itself.
 * `external(id)` names what stays a require().
 */
export async function rechunk({ files, outDir, external }) {
  const bundle = await rollup({
    input: { svc: resolve(outDir, 'svc.js') },
    external,
    treeshake: false,
    // The entry may export more than its own exports (what the chunks it loads import from it):
    // without this rollup adds a facade file in front of it.
    preserveEntrySignatures: 'allow-extension',
    plugins: [{
      name: 'esbuild-output',
      resolveId(source, importer) {
        if (external(source)) return false;
        const path = importer && source.startsWith('.') ? resolve(dirname(importer), source) : resolve(source);
        if (!files.has(path)) throw new Error(`bundle: ${relative('.', importer ?? '.')} imports ${source}, which esbuild did not write`);
        return path;
      },
      load: (id) => files.get(id),
      // The file's own URL, as Node's require() would see it (rollup's default also looks for a browser's document).
      resolveImportMeta: (property) => (property === 'url' ? "require('node:url').pathToFileURL(__filename).href" : null),
    }],
    onwarn(warning, warn) {
      // esbuild's chunks import each other both ways; the order they run in is rollup's concern.
      if (warning.code === 'CIRCULAR_DEPENDENCY') return;
      // A dependency's unused name from a Node built-in (@hono/node-server's STATUS_CODES, behind
      // `svc mcp --http`) is dropped, which is all the warning says.
      if (warning.code === 'UNUSED_EXTERNAL_IMPORT' && String(warning.exporter).startsWith('node:')) return;
      warn(warning);
    },
  });
  // A lazy import() becomes a require() in a promise: the same order, on the same turn.
  const { output } = await bundle.generate({ format: 'cjs', entryFileNames: '[name].cjs', chunkFileNames: '[name].cjs', compact: true, dynamicImportInCjs: false });
  await bundle.close();

  // A chunk with no code (esbuild writes one for modules that compile to nothing) is neither
  // written nor required: a file to load for nothing.
  const empty = new Set(output.filter((f) => f.type === 'chunk' && !f.isEntry && !f.isDynamicEntry && f.code.replace(/'use strict';/, '').trim() === '').map((f) => f.fileName));
  refuseCycles(output);
  mkdirSync(outDir, { recursive: true });
  const written = [];
  for (const file of output) {
    if (file.type !== 'chunk') throw new Error(`bundle: unexpected asset ${file.fileName}`);
    if (empty.has(file.fileName)) continue;
    // A `require` of the code's own would hide the one each file is given.
    if (/\b(?:var|let|const|function|class)\s+require\b/.test(file.code)) throw new Error(`bundle: ${file.fileName} declares a require of its own`);
    const code = dropBareRequires(file.code, (name) => isBuiltin(name) || empty.has(name.replace(/^\.\//, '')));
    writeFileSync(join(outDir, file.fileName), code);
    written.push({ fileName: file.fileName, code });
  }
  return written;
}

/**
 * `code` without the require() calls made only for their side effects (`require('node:fs');`, not
 * `var fs = require('node:fs')`) of the modules `drop(name)` names. rollup keeps one for every
 * module a chunk's dependencies import, to keep their order: a builtin has no side effect svc
 * relies on, and loading one (node:crypto, node:assert) for a command that never calls it costs
 * milliseconds; an empty chunk is not written.
 */
function dropBareRequires(code, drop) {
  const edits = [];
  const isRequire = (e) => e.type === 'CallExpression' && e.callee.type === 'Identifier' && e.callee.name === 'require' && e.arguments.length === 1 && e.arguments[0].type === 'Literal';
  for (const node of parseAst(code).body) {
    if (node.type !== 'ExpressionStatement') continue;
    const calls = node.expression.type === 'SequenceExpression' ? node.expression.expressions : [node.expression];
    if (!calls.every(isRequire)) continue;
    const kept = calls.filter((c) => !drop(c.arguments[0].value));
    if (kept.length === calls.length) continue;
    edits.push({ start: node.start, end: node.end, text: kept.length ? `${kept.map((c) => code.slice(c.start, c.end)).join(',')};` : '' });
  }
  let out = code;
  for (const e of edits.reverse()) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/**
 * Throws when chunks require each other in a circle: one of them would then run before a chunk
 * it requires has set its exports, and read them as undefined.
 */
function refuseCycles(output) {
  const names = new Set(output.map((f) => f.fileName));
  const imports = new Map(output.map((f) => [f.fileName, f.imports.filter((i) => names.has(i))]));
  const state = new Map(); // fileName -> 'open' while on the path, 'done' after
  const visit = (name, path) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'open') throw new Error(`bundle: chunks require each other in a circle (${[...path.slice(path.indexOf(name)), name].join(' -> ')})`);
    state.set(name, 'open');
    for (const next of imports.get(name) ?? []) visit(next, [...path, name]);
    state.set(name, 'done');
  };
  for (const name of imports.keys()) visit(name, []);
}
