// Bundles the CLI into dist/bundle/ (ESM, code-split at each lazy import): one file to parse at
// start-up instead of hundreds of modules. It is the program the package ships and bin/svc.js runs;
// version.js is a second, tiny entry so that `svc --version` answers from the built code, fast.
import { copyFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { build } from 'esbuild';

rmSync('dist/bundle', { recursive: true, force: true });

/**
 * Modules a dependency loads at start-up for a path svc never takes, each replaced by a stub: every
 * command would otherwise pay for them (parsing, and Node's own modules behind them).
 * - undici's Client loads its HTTP/2 half (and node:http2, ~5 ms) even when HTTP/2 is never
 *   negotiated. svc never offers it: connections advertise only http/1.1 (undici's default without
 *   allowH2, and our proxy tunnel's ALPN).
 * - undici's HTTP/1 client reaches fetch's body code (fetch's utilities, WebIDL, FormData: ~100 kB)
 *   only for a FormData body; svc sends strings and buffers.
 * - undici bundles its HTTP parser twice (WebAssembly with and without SIMD, 72 kB of base64 each);
 *   every Node svc supports has SIMD, so the plain one is read from its own file only if needed.
 * - undici requires node:http (all of Node's HTTP client and server, ~5 ms) only to recognise a
 *   Node response passed as a request body (svc passes none) and to read its default header size
 *   limit at load (svc gives every Agent `maxHeaderSize`, src/api/limits.ts). Without one the
 *   stub makes undici refuse loudly ("http module not available").
 * - undici calls node:assert (~2.5 ms to load) only as assert(condition): the stub checks the
 *   condition and loads the real one to throw its AssertionError.
 * - commander requires node:child_process (with node:dgram behind it, ~7 ms) for executable
 *   subcommands, which svc has none of: loaded on first use instead.
 * A stub that is ever reached says so, rather than misbehave.
 */
const STUBS = [
  { importer: ['undici', 'lib', 'dispatcher', 'client.js'], filter: /client-h2\.js$/, contents: "module.exports = function connectH2() { throw new Error('the server chose HTTP/2, which svc does not offer'); };" },
  { importer: ['undici', 'lib', 'dispatcher', 'client-h1.js'], filter: /web\/fetch\/body\.js$/, contents: "module.exports = { extractBody() { throw new Error('svc sends no FormData bodies'); } };" },
  { importer: ['undici', 'lib', 'dispatcher', 'client-h1.js'], filter: /llhttp\/llhttp-wasm\.js$/, contents: "module.exports = require('../llhttp-wasm.cjs');" },
  { importer: ['undici', 'lib', 'core', 'util.js'], filter: /^node:http$/, contents: 'module.exports = { IncomingMessage: class NotAnIncomingMessage {} };' },
  { importer: ['undici', 'lib', 'dispatcher', 'client.js'], filter: /^node:http$/, contents: 'module.exports = {};' },
  { importer: ['undici', 'lib'], dir: true, filter: /^node:assert$/, contents: "module.exports = function assert(value, message) { if (!value) process.getBuiltinModule('node:assert').ok(value, message); };" },
  { importer: ['commander', 'lib', 'command.js'], filter: /^node:child_process$/, contents: "module.exports = { spawn: (...args) => process.getBuiltinModule('node:child_process').spawn(...args) };" },
];
const withStubs = {
  name: 'svc-stubs',
  setup(b) {
    // The plain parser, copied beside the chunks below, stays a require() of a file of its own.
    b.onResolve({ filter: /^\.\.\/llhttp-wasm\.cjs$/ }, (args) => ({ path: args.path, external: true }));
    STUBS.forEach((stub, i) => {
      const from = join('node_modules', ...stub.importer);
      const applies = (importer) => (stub.dir ? importer.includes(`${from}${sep}`) : importer.endsWith(from));
      b.onResolve({ filter: stub.filter }, (args) => (applies(args.importer) ? { path: String(i), namespace: 'svc-stub' } : undefined));
    });
    b.onLoad({ filter: /.*/, namespace: 'svc-stub' }, (args) => ({ contents: STUBS[Number(args.path)].contents, loader: 'js' }));
  },
};

const result = await build({
  entryPoints: { svc: 'src/main.ts' },
  metafile: true,
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minifySyntax: true,
  // No indentation or line breaks: ~1 MB less installed, so the native keyring module (3.4 MB, an
  // optional dependency) keeps the installed package within 25 MB. Names are kept (stack traces).
  minifyWhitespace: true,
  chunkNames: 'chunks/[name]-[hash]',
  // libsql and @napi-rs/keyring are native modules: loaded from node_modules, never bundled. They
  // are the package's only runtime dependencies (the keyring an optional one, imported only when a
  // secret is read or written; a unit test keeps the lists equal); everything else is in the bundle.
  external: ['libsql', '@napi-rs/keyring'],
  // CommonJS dependencies (undici) call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __svcRequire } from 'node:module'; const require = __svcRequire(import.meta.url);" },
  plugins: [withStubs],
  logLevel: 'warning',
});

// undici's index (lib/global.js) installs a global dispatcher at load, which Node's own fetch()
// then uses: built from the stubs above it has no header size limit and refuses every request.
// Code of svc reaches undici only through src/api/undici.ts (its deep imports).
const globalDispatcher = Object.keys(result.metafile.inputs).filter((f) => f.endsWith(join('undici', 'lib', 'global.js')));
if (globalDispatcher.length) throw new Error(`bundle: undici's index is bundled (${globalDispatcher.join(', ')}); import it through src/api/undici.ts`);

// The plain HTTP parser the stub above requires, relative to the chunk that holds undici.
copyFileSync(join('node_modules', 'undici', 'lib', 'llhttp', 'llhttp-wasm.js'), join('dist', 'bundle', 'llhttp-wasm.cjs'));
const requiring = readdirSync(join('dist', 'bundle'), { recursive: true }).filter((f) => String(f).endsWith('.js') && readFileSync(join('dist', 'bundle', String(f)), 'utf8').includes('../llhttp-wasm.cjs'));
if (requiring.length === 0 || requiring.some((f) => dirname(String(f)) !== 'chunks')) throw new Error(`bundle: ../llhttp-wasm.cjs must be required from dist/bundle/chunks/ only, found in: ${requiring.join(', ') || 'nothing'}`);

// `svc --version`: one small file of its own (no shared chunks, no require banner) holding the
// version this bundle was built from.
await build({ entryPoints: { version: 'src/version.ts' }, outdir: 'dist/bundle', bundle: true, format: 'esm', platform: 'node', target: 'node20.19', logLevel: 'warning' });
