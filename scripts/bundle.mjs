// Bundles the CLI into dist/bundle/ (code-split at each lazy import): a few files to parse at
// start-up instead of hundreds of modules. It is the program the package ships and bin/svc.js runs
// (through bin/bundle-loader.js); version.js is a second, tiny entry so that `svc --version` answers
// from the built code, fast. esbuild bundles (TypeScript, CommonJS dependencies, the stubs below) in
// memory; rollup then splits its output again into fewer files, written as CommonJS
// (scripts/rechunk.mjs), all in dist/bundle/ itself.
import { createHash } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { join, sep } from 'node:path';
import { build } from 'esbuild';
import { rechunk } from './rechunk.mjs';

const OUT = 'dist/bundle';
rmSync(OUT, { recursive: true, force: true });

/**
 * Modules a dependency loads at start-up for a path svc never takes, each replaced by a stub: every
 * command would otherwise pay for them (parsing, and Node's own modules behind them).
 * - undici's Client loads its HTTP/2 half (and node:http2, ~5 ms) even when HTTP/2 is never
 *   negotiated. svc never offers it: connections advertise only http/1.1 (undici's default without
 *   allowH2, and our proxy tunnel's ALPN).
 * - undici's HTTP/1 client reaches fetch's body code (fetch's utilities, WebIDL, FormData: ~100 kB)
 *   only for a FormData body; svc sends strings and buffers.
 * - undici bundles its HTTP parser twice (WebAssembly with and without SIMD, 72 kB of base64 each);
 *   every Node svc supports has SIMD, so the plain one is read from its own file only if needed,
 *   and the SIMD one, which every request uses, is read as the binary it is (54 kB) from
 *   llhttp_simd.wasm: 72 kB less code for every command to read and keep in its code cache.
 * - svc's table layout (src/io/table-libs.ts) requires cli-table3 and string-width (~7 ms to load)
 *   on first use, with a require() no bundler follows: the stub requires them from a file of their
 *   own, built below from the same packages.
 * - undici requires node:http (all of Node's HTTP client and server, ~5 ms) only to recognise a
 *   Node response passed as a request body (svc passes none) and to read its default header size
 *   limit at load (svc gives every Agent `maxHeaderSize`, src/api/limits.ts). Without one the
 *   stub makes undici refuse loudly ("http module not available").
 * - undici calls node:assert (~2.5 ms to load) only as assert(condition): the stub checks the
 *   condition and loads the real one to throw its AssertionError.
 * - undici builds a search tree of the well-known header names when it loads (~1.5 ms, the most
 *   of its start-up), to return the same lower-cased string for each; without it undici lower-cases
 *   the name it got (`tree.lookup(name) ?? name.toString('latin1').toLowerCase()`): equal strings,
 *   for the few answers a command reads.
 * - undici's HTTP/1 client reads two tables of llhttp's constants (ERROR and TYPE: numbers by
 *   name), but the module it requires builds every table llhttp has at load (methods, statuses,
 *   character maps; ~1 ms, the largest top level of undici's): the stub holds those two, copied
 *   at build from the very module, and the build fails if client-h1.js ever reads another.
 * - conf loads ajv (with ajv-formats) for its `schema` option and semver for its `migrations`
 *   when it loads; svc gives it neither (src/config/profiles.ts writes the file through it, and
 *   nothing else): ~10 ms of every command that writes a profile, on Node 20.
 * - commander requires node:child_process (with node:dgram behind it, ~7 ms) for executable
 *   subcommands, which svc has none of: loaded on first use instead.
 * A stub that is ever reached says so, rather than misbehave.
 */
/** Files beside the chunks, each required as `./<name>` by a stub (every chunk is in OUT itself). */
const SIDE_FILES = {
  'llhttp-wasm.cjs': () => copyFileSync(join('node_modules', 'undici', 'lib', 'llhttp', 'llhttp-wasm.js'), join(OUT, 'llhttp-wasm.cjs')),
  'llhttp_simd.wasm': () => writeFileSync(join(OUT, 'llhttp_simd.wasm'), createRequire(import.meta.url)('undici/lib/llhttp/llhttp_simd-wasm.js')),
  'table-libs.cjs': () => build({
    stdin: { contents: "module.exports = { cliTable3: require('cli-table3'), stringWidth: require('string-width') };", resolveDir: '.', loader: 'js' },
    outfile: join(OUT, 'table-libs.cjs'), bundle: true, format: 'cjs', platform: 'node', target: 'node20.19', minifyWhitespace: true, logLevel: 'warning',
  }),
};

/**
 * The tables of llhttp's constants undici's client-h1.js reads (`constants.X`), as a module of their
 * own: copied from undici's module, so equal to it; any other table read there fails the build.
 */
function llhttpConstantsStub() {
  const need = ['ERROR', 'TYPE'];
  const client = readFileSync(join('node_modules', 'undici', 'lib', 'dispatcher', 'client-h1.js'), 'utf8');
  if (!client.includes("const constants = require('../llhttp/constants.js')")) throw new Error("bundle: undici's client-h1.js no longer requires llhttp's constants as `constants`: look at the stub again");
  const read = new Set([...client.matchAll(/(?<![\w$./'"])constants\.([A-Za-z_$][\w$]*)/g)].map((m) => m[1]));
  const other = [...read].filter((name) => !need.includes(name));
  if (!read.has('ERROR') || other.length) throw new Error(`bundle: undici's client-h1.js reads llhttp constants ${[...read].join(', ')}; the stub holds ${need.join(', ')}`);
  const constants = createRequire(import.meta.url)('undici/lib/llhttp/constants.js');
  return `module.exports = ${JSON.stringify(Object.fromEntries(need.map((name) => [name, constants[name]])))};`;
}

const STUBS = [
  { importer: ['undici', 'lib', 'dispatcher', 'client.js'], filter: /client-h2\.js$/, contents: "module.exports = function connectH2() { throw new Error('the server chose HTTP/2, which svc does not offer'); };" },
  { importer: ['undici', 'lib', 'dispatcher', 'client-h1.js'], filter: /web\/fetch\/body\.js$/, contents: "module.exports = { extractBody() { throw new Error('svc sends no FormData bodies'); } };" },
  { importer: ['undici', 'lib', 'dispatcher', 'client-h1.js'], filter: /llhttp\/llhttp-wasm\.js$/, contents: "module.exports = require('./llhttp-wasm.cjs');" },
  { importer: ['undici', 'lib', 'dispatcher', 'client-h1.js'], filter: /llhttp\/llhttp_simd-wasm\.js$/, contents: "module.exports = require('node:fs').readFileSync(require('node:path').join(__dirname, './llhttp_simd.wasm'));" },
  { importer: ['undici', 'lib', 'core', 'util.js'], filter: /^node:http$/, contents: 'module.exports = { IncomingMessage: class NotAnIncomingMessage {} };' },
  { importer: ['undici', 'lib', 'dispatcher', 'client.js'], filter: /^node:http$/, contents: 'module.exports = {};' },
  { importer: ['undici', 'lib', 'dispatcher', 'client-h1.js'], filter: /llhttp\/constants\.js$/, contents: llhttpConstantsStub() },
  { importer: ['undici', 'lib', 'core', 'util.js'], filter: /^\.\/tree$/, contents: 'module.exports = { tree: { lookup: () => null } };' },
  { importer: ['undici', 'lib'], dir: true, filter: /^node:assert$/, contents: "module.exports = function assert(value, message) { if (!value) process.getBuiltinModule('node:assert').ok(value, message); };" },
  { importer: ['conf', 'dist', 'source', 'index.js'], filter: /^ajv\/dist\/2020\.js$/, contents: "module.exports = { Ajv2020: class NoAjv { constructor() { throw new Error('svc gives conf no schema'); } } };" },
  { importer: ['conf', 'dist', 'source', 'index.js'], filter: /^ajv-formats$/, contents: "module.exports = { default() { throw new Error('svc gives conf no schema'); } };" },
  { importer: ['conf', 'dist', 'source', 'index.js'], filter: /^semver$/, contents: "const none = () => { throw new Error('svc runs no conf migrations'); }; module.exports = { eq: none, clean: none, satisfies: none, lte: none, gt: none };" },
  { importer: ['commander', 'lib', 'command.js'], filter: /^node:child_process$/, contents: "module.exports = { spawn: (...args) => process.getBuiltinModule('node:child_process').spawn(...args) };" },
  { importer: ['src', 'io', 'table.ts'], own: true, filter: /^\.\/table-libs\.js$/, contents: "export const cliTable3 = () => require('./table-libs.cjs').cliTable3; export const stringWidth = () => require('./table-libs.cjs').stringWidth;" },
];
const withStubs = {
  name: 'svc-stubs',
  setup(b) {
    // A side file stays a require() of a file of its own.
    b.onResolve({ filter: /^\.\/[a-z-]+\.cjs$/, namespace: 'svc-stub' }, (args) => ({ path: args.path, external: true }));
    STUBS.forEach((stub, i) => {
      const from = stub.own ? join(...stub.importer) : join('node_modules', ...stub.importer);
      const applies = (importer) => (stub.dir ? importer.includes(`${from}${sep}`) : importer.endsWith(from));
      b.onResolve({ filter: stub.filter }, (args) => (applies(args.importer) ? { path: String(i), namespace: 'svc-stub' } : undefined));
    });
    b.onLoad({ filter: /.*/, namespace: 'svc-stub' }, (args) => ({ contents: STUBS[Number(args.path)].contents, loader: 'js' }));
  },
};

// libsql and @napi-rs/keyring are native modules: loaded from node_modules, never bundled. They
// are the package's only runtime dependencies (the keyring an optional one, imported only when a
// secret is read or written; a unit test keeps the lists equal); everything else is in the bundle.
const NATIVE = ['libsql', '@napi-rs/keyring'];

const result = await build({
  write: false,
  entryPoints: { svc: 'src/main.ts' },
  metafile: true,
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minifySyntax: true,
  // No indentation or line breaks: ~1 MB less installed, so the native keyring module (3.4 MB, an
  // optional dependency) keeps the installed package within 25 MB. Names are kept (stack traces).
  minifyWhitespace: true,
  external: NATIVE,
  plugins: [withStubs],
  logLevel: 'warning',
});

// undici's index (lib/global.js) installs a global dispatcher at load, which Node's own fetch()
// then uses: built from the stubs above it has no header size limit and refuses every request.
// Code of svc reaches undici only through src/api/undici.ts (its deep imports).
const globalDispatcher = Object.keys(result.metafile.inputs).filter((f) => f.endsWith(join('undici', 'lib', 'global.js')));
if (globalDispatcher.length) throw new Error(`bundle: undici's index is bundled (${globalDispatcher.join(', ')}); import it through src/api/undici.ts`);

const external = (id) => isBuiltin(id) || NATIVE.includes(id);
const written = await rechunk({ files: new Map(result.outputFiles.map((f) => [f.path, f.text])), outDir: OUT, external });

for (const [name, make] of Object.entries(SIDE_FILES)) {
  await make();
  if (!written.some((f) => f.code.includes(`"./${name}"`) || f.code.includes(`'./${name}'`))) throw new Error(`bundle: nothing reads ./${name}`);
}

// `svc --version`: one small file of its own (no shared chunks) holding the version this bundle
// was built from.
await build({ entryPoints: { version: 'src/version.ts' }, outdir: OUT, outExtension: { '.js': '.cjs' }, bundle: true, format: 'cjs', platform: 'node', target: 'node20.19', logLevel: 'warning' });

// The build's identity: a hash of every file in it. bin/bundle-loader.js keeps its code caches per
// build, so a cache is only ever used with the very code it was made from.
const id = createHash('sha256');
for (const name of readdirSync(OUT).sort()) id.update(`${name}\0`).update(readFileSync(join(OUT, name))).update('\0');
writeFileSync(join(OUT, 'build-id'), `${id.digest('hex').slice(0, 16)}\n`);
