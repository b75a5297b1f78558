// The bundle's second pass (scripts/bundle.mjs runs it): rollup splits esbuild's output again.
//
// esbuild splits per set of entry points, and every lazy import is an entry point, so a command
// loaded ~50 files, most of them a few hundred bytes; each file costs its resolution, read, compile
// and link. rollup leaves out of a lazily loaded chunk what the code importing it has already
// loaded, so far fewer sets remain: `svc --json account` loads 17 files instead of 49. Tree-shaking
// is off: rollup moves code between files and changes nothing else.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { rollup } from 'rollup';

// CommonJS dependencies (undici, commander) call require(): each file that names it gets one.
const REQUIRE = "import { createRequire as __svcRequire } from 'node:module'; const require = __svcRequire(import.meta.url);";

/**
 * Rewrites esbuild's in-memory output (`files`: absolute path -> code, entry `<outDir>/svc.js`)
 * into `outDir`, every file in `outDir` itself. `external(id)` names what stays an import.
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
    }],
    onwarn(warning, warn) {
      // esbuild's chunks import each other both ways; the order they run in is rollup's concern.
      if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning);
    },
  });
  const { output } = await bundle.generate({ format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name].js', compact: true });
  await bundle.close();

  // A chunk with no code (esbuild writes one for modules that compile to nothing) is neither
  // written nor imported: a file to load for nothing.
  const empty = new Set(output.filter((f) => f.type === 'chunk' && !f.isEntry && !f.isDynamicEntry && f.code.trim() === '').map((f) => f.fileName));
  mkdirSync(outDir, { recursive: true });
  const written = [];
  for (const file of output) {
    if (file.type !== 'chunk') throw new Error(`bundle: unexpected asset ${file.fileName}`);
    if (empty.has(file.fileName)) continue;
    // Both bundlers rename a `require` of the code's own; one left would clash with the banner.
    if (/\b(?:var|let|const|function|class)\s+require\b/.test(file.code)) throw new Error(`bundle: ${file.fileName} declares a require of its own`);
    const code = file.code.replace(/import\s*(['"])\.\/([^'"]+)\1;?/g, (statement, _quote, name) => (empty.has(name) ? '' : statement));
    writeFileSync(join(outDir, file.fileName), /\brequire\b/.test(code) ? `${REQUIRE}${code}` : code);
    written.push({ fileName: file.fileName, code });
  }
  return written;
}
