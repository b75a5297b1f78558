// The bundle's start-up stubs (scripts/bundle.mjs): a real command through the built bin/svc.js
// works without Node's HTTP, assert or child_process modules ever loading, and the plain HTTP
// parser kept in a file of its own still loads; the MCP SDK's chunks load for `svc mcp` only.
// `npm run build` first (npm test does).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { ROOT, runSvc } from '../helpers/run.js';

let t: TestSandbox;
let work: string;
beforeAll(async () => {
  t = await startTestSandbox();
  work = mkdtempSync(join(tmpdir(), 'svc-bundle-'));
});
afterAll(async () => {
  await t.close();
  rmSync(work, { recursive: true, force: true });
});

/**
 * Runs bin/svc.js with a hook that writes, at exit, the Node modules the process loaded, and a
 * module loader hook that records every file of the bundle it imports (`files`: paths under dist/bundle).
 */
async function modulesLoadedBy(args: string[], opts: { files?: boolean } = {}): Promise<{ status: number | null; stdout: string; stderr: string; loaded: string[]; files: string[] }> {
  const list = join(work, 'loaded.txt');
  const hook = join(work, 'hook.cjs');
  const urls = join(work, 'urls.txt');
  const loader = join(work, 'loader.mjs');
  const register = join(work, 'register.mjs');
  writeFileSync(hook, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));\n`);
  writeFileSync(loader, `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(urls)}, url + '\\n'); return next(url, context); }\n`);
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(loader).href)});\n`);
  writeFileSync(urls, '');
  // The loader hook only where files are asked for: it runs a thread of its own, with modules of its own.
  const importHook = opts.files ? ['--import', pathToFileURL(register).href] : [];
  // runSvc, not spawnSync: the sandbox answering it runs in this process.
  const r = await runSvc(args, { ...t.env, NODE_OPTIONS: ['--require', hook, ...importHook].join(' ') });
  const loaded = readFileSync(list, 'utf8').split('\n').filter((l) => l.startsWith('NativeModule ')).map((l) => l.slice('NativeModule '.length));
  const bundle = `${pathToFileURL(join(ROOT, 'dist', 'bundle')).href}/`;
  const files = readFileSync(urls, 'utf8').split('\n').filter((u) => u.startsWith(bundle)).map((u) => u.slice(bundle.length));
  return { status: r.code, stdout: r.stdout, stderr: r.stderr, loaded, files };
}

/** The bundle's chunks that hold the MCP SDK (its server, its stdio transport, its protocol types). */
function mcpSdkChunks(): string[] {
  const dir = join(ROOT, 'dist', 'bundle');
  const markers = ['StdioServerTransport already started', 'notifications/tools/list_changed', 'Server does not support tools'];
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.js') && markers.some((m) => readFileSync(join(dir, f), 'utf8').includes(m))) : [];
}

describe('the bundle loads only what a command needs', () => {
  it('a command that talks to the service works without node:http, node:http2, node:assert or node:child_process', async () => {
    // The first command of a config dir stores the account it found (through conf, which loads
    // node:assert for its schema checks); from then on a command only reads.
    expect((await modulesLoadedBy(['--json', 'balance'])).status).toBe(0);
    for (const args of [['--json', 'account'], ['--json', 'balance'], ['--json', 'transfer', 'ls']]) {
      const r = await modulesLoadedBy(args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(() => JSON.parse(r.stdout)).not.toThrow();
      // The request went through undici (its parser and sockets are here) ...
      expect(r.loaded).toContain('net');
      // ... and none of these was needed for it.
      for (const m of ['http', 'http2', 'assert', 'child_process', 'dgram']) expect(r.loaded, `${args.join(' ')} loaded ${m}`).not.toContain(m);
    }
  });

  it('the MCP SDK loads for `svc mcp` only: not for `svc --help`, nor for a command that talks to the service', async () => {
    const sdk = mcpSdkChunks();
    expect(sdk.length).toBeGreaterThanOrEqual(2);
    for (const args of [['--help'], ['--json', 'account']]) {
      const r = await modulesLoadedBy(args, { files: true });
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.files).toContain('svc.js'); // the hook saw the bundle load ...
      expect(r.files.filter((f) => sdk.includes(f)), args.join(' ')).toEqual([]); // ... and none of the SDK
    }
    // Its stdin closed at once: it starts, serves nobody, and ends.
    const mcp = await modulesLoadedBy(['mcp', '--read-only'], { files: true });
    expect(mcp.status, mcp.stderr).toBe(0);
    expect(mcp.stdout).toBe('');
    expect(sdk.every((f) => mcp.files.includes(f)), `${sdk.join(', ')} in ${mcp.files.join(', ')}`).toBe(true);
  });

  it('a command that talks to the service loads few files of the bundle (49 for `--json account` before the second pass, scripts/rechunk.mjs)', async () => {
    for (const [args, most] of [[['--json', 'account'], 20], [['--json', 'balance'], 25], [['--json', 'transfer', 'ls'], 25]] as const) {
      const r = await modulesLoadedBy([...args], { files: true });
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.files).toContain('svc.js');
      expect(new Set(r.files).size, `${args.join(' ')}: ${r.files.join(' ')}`).toBeLessThanOrEqual(most);
    }
  });

  it('every package the bundle requires at run time is installed with it: a builtin or a runtime dependency', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: object; optionalDependencies?: object };
    const installed = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})]);
    const dir = join(ROOT, 'dist', 'bundle');
    const required = new Map<string, string>();
    for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.c?js$/.test(f))) {
      const code = readFileSync(join(dir, f), 'utf8');
      // Any require-like call of a bare name (not one written inside a string, as ajv's generated code is) ...
      for (const m of code.matchAll(/(?<![\w$'"`])[\w$]*[rR]equire[\w$]*\(\s*(["'])([^"'./][^"']*)\1\s*\)/g)) required.set(m[2]!, f);
      // ... and a createRequire(...)("name") call.
      for (const m of code.matchAll(/createRequire\([^)]*\)\(\s*(["'])([^"'./][^"']*)\1/g)) required.set(m[2]!, f);
    }
    expect(required.size).toBeGreaterThan(5); // the scan sees the bundle's requires at all
    const missing = [...required].filter(([name]) => !isBuiltin(name) && !installed.has(name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]!));
    expect(missing.map(([name, f]) => `${name} (${f})`)).toEqual([]);
  });

  it('the plain (non-SIMD) HTTP parser kept beside the chunks is a WebAssembly module', () => {
    const wasm = createRequire(import.meta.url)(join(ROOT, 'dist', 'bundle', 'llhttp-wasm.cjs')) as Buffer;
    // A WebAssembly binary: its magic number and version 1 (the tests' types have no WebAssembly global).
    expect(wasm.subarray(0, 8).toString('hex')).toBe('0061736d01000000');
    expect(wasm.length).toBeGreaterThan(10_000);
  });
});
