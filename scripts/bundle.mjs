// Bundles the CLI into dist/bundle/ (ESM, code-split at each lazy import): one file to parse at
// start-up instead of hundreds of modules. It is the program the package ships and bin/svc.js runs;
// version.js is a second, tiny entry so that `svc --version` answers from the built code, fast.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

rmSync('dist/bundle', { recursive: true, force: true });

/**
 * undici's Client loads its HTTP/2 half (and with it node:http2, ~5 ms of every start) even when
 * HTTP/2 is never negotiated. svc never offers it: connections advertise only http/1.1 (undici's
 * default without allowH2, and our proxy tunnel's ALPN), so that half is replaced by a stub that
 * says so should it ever be reached.
 */
const withoutHttp2 = {
  name: 'undici-without-http2',
  setup(b) {
    b.onResolve({ filter: /client-h2\.js$/ }, (args) => (args.importer.endsWith(join('undici', 'lib', 'dispatcher', 'client.js')) ? { path: 'client-h2', namespace: 'svc-stub' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'svc-stub' }, () => ({
      contents: "module.exports = function connectH2() { throw new Error('the server chose HTTP/2, which svc does not offer'); };",
      loader: 'js',
    }));
  },
};

await build({
  entryPoints: { svc: 'src/main.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minifySyntax: true,
  chunkNames: 'chunks/[name]-[hash]',
  // libsql is a native module: loaded from node_modules, never bundled. It is the package's only
  // runtime dependency (a unit test keeps the two lists equal); everything else is in the bundle.
  external: ['libsql'],
  // CommonJS dependencies (undici) call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __svcRequire } from 'node:module'; const require = __svcRequire(import.meta.url);" },
  plugins: [withoutHttp2],
  logLevel: 'warning',
});

// `svc --version`: one small file of its own (no shared chunks, no require banner) holding the
// version this bundle was built from.
await build({ entryPoints: { version: 'src/version.ts' }, outdir: 'dist/bundle', bundle: true, format: 'esm', platform: 'node', target: 'node20.19', logLevel: 'warning' });
