// Bundles the CLI into dist/bundle/ (ESM, code-split at each lazy import): one file to parse at
// start-up instead of hundreds of modules. bin/svc.js prefers it when present.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/bundle', { recursive: true, force: true });

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
  // libsql is a native module: loaded from node_modules, never bundled.
  external: ['libsql'],
  // CommonJS dependencies (undici) call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __svcRequire } from 'node:module'; const require = __svcRequire(import.meta.url);" },
  logLevel: 'warning',
});
