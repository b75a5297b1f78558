// The bundle's start-up stubs (scripts/bundle.mjs): a real command through the built bin/svc.js
// works without Node's HTTP, assert or child_process modules ever loading, and the plain HTTP
// parser kept in a file of its own still loads; the MCP SDK's chunks load for `svc mcp` only.
// `npm run build` first (npm test does).
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { BIN, machineEnv, ROOT, runSvc } from '../helpers/run.js';

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
 * Runs bin/svc.js with a hook that writes, at exit, the Node modules the process loaded, and the
 * bundle loader's log (SVC_DEBUG_CODE_CACHE, bin/bundle-loader.js) of every file of the bundle it
 * loaded (`files`: names in dist/bundle, with how each was compiled in `cache`).
 */
async function modulesLoadedBy(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string; loaded: string[]; files: string[]; cache: string[] }> {
  const list = join(work, 'loaded.txt');
  const hook = join(work, 'hook.cjs');
  const log = join(work, 'bundle-loader.log');
  writeFileSync(hook, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));\n`);
  writeFileSync(log, '');
  // spawn, not spawnSync: the sandbox answering it runs in this process. Nothing on stdin
  // (/dev/null), as from cron: a command that does not read it must not make process.stdin.
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...machineEnv(), ...t.env, NODE_OPTIONS: `--require ${hook}`, SVC_DEBUG_CODE_CACHE: log, ...env } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  const loaded = readFileSync(list, 'utf8').split('\n').filter((l) => l.startsWith('NativeModule ')).map((l) => l.slice('NativeModule '.length));
  const loads = readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('load ')).map((l) => l.split(' '));
  return { status: r.code, stdout: r.stdout, stderr: r.stderr, loaded, files: loads.map((l) => l[1]!), cache: loads.map((l) => l[2]!) };
}

/** The bundle's chunks that hold the MCP SDK (its server, its stdio transport, its protocol types). */
function mcpSdkChunks(): string[] {
  const dir = join(ROOT, 'dist', 'bundle');
  const markers = ['StdioServerTransport already started', 'notifications/tools/list_changed', 'Server does not support tools'];
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.cjs') && markers.some((m) => readFileSync(join(dir, f), 'utf8').includes(m))) : [];
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

  it('nor Node modules for what it never does: no stdin stream, no fs facade, no perf_hooks, no node:v8 past Node 20', async () => {
    expect((await modulesLoadedBy(['--json', 'balance'])).status).toBe(0);
    const major = Number(process.versions.node.split('.')[0]);
    for (const args of [['--json', 'account'], ['--json', 'balance'], ['--json', 'transfer', 'ls']]) {
      const r = await modulesLoadedBy(args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      // process.stdin from /dev/null is an fs.ReadStream (fs's streams); `performance` loads
      // perf_hooks; an ES import of node:net or node:fs builds a facade (net's BlockList; fs's
      // promises and readline on Node 22 and later, which load them only for that).
      const never = ['internal/fs/streams', 'perf_hooks', 'internal/blocklist', ...(major >= 22 ? ['internal/fs/promises', 'internal/readline/interface', 'v8'] : [])];
      for (const m of never) expect(r.loaded, `${args.join(' ')} loaded ${m}`).not.toContain(m);
    }
  });

  it('the MCP SDK loads for `svc mcp` only: not for `svc --help`, nor for a command that talks to the service', async () => {
    const sdk = mcpSdkChunks();
    expect(sdk.length).toBeGreaterThanOrEqual(2);
    for (const args of [['--help'], ['--json', 'account']]) {
      const r = await modulesLoadedBy(args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.files).toContain('svc.cjs'); // the log saw the bundle load ...
      expect(r.files.filter((f) => sdk.includes(f)), args.join(' ')).toEqual([]); // ... and none of the SDK
    }
    // Its stdin closed at once: it starts, serves nobody, and ends.
    const mcp = await modulesLoadedBy(['mcp', '--read-only']);
    expect(mcp.status, mcp.stderr).toBe(0);
    expect(mcp.stdout).toBe('');
    expect(sdk.every((f) => mcp.files.includes(f)), `${sdk.join(', ')} in ${mcp.files.join(', ')}`).toBe(true);
  });

  it('a command that talks to the service loads few files of the bundle (49 for `--json account` before the second pass, scripts/rechunk.mjs)', async () => {
    for (const [args, most] of [[['--json', 'account'], 20], [['--json', 'balance'], 25], [['--json', 'transfer', 'ls'], 25]] as const) {
      const r = await modulesLoadedBy([...args]);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.files).toContain('svc.cjs');
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

  it("undici's search tree of header names is left out (built at load, the most of undici's start-up)", () => {
    const dir = join(ROOT, 'dist', 'bundle');
    const cjs = readdirSync(dir).filter((f) => f.endsWith('.cjs')).map((f) => readFileSync(join(dir, f), 'utf8'));
    expect(cjs.some((code) => code.includes('lib/dispatcher/client-h1.js'))).toBe(true); // undici is in the bundle ...
    expect(cjs.filter((code) => code.includes('TernarySearchTree') || code.includes('class TstNode'))).toEqual([]); // ... its tree is not
  });

  it("conf comes without ajv and semver (its schema and migration paths, which svc never asks for), and a profile is still written", async () => {
    const dir = join(ROOT, 'dist', 'bundle');
    const files = readdirSync(dir).filter((f) => f.endsWith('.cjs')).map((f) => ({ f, code: readFileSync(join(dir, f), 'utf8') }));
    const CONF = 'Please specify the `projectVersion` option.'; // conf's own words
    const confChunk = files.filter(({ code }) => code.includes(CONF));
    expect(confChunk.length).toBe(1); // conf is in the bundle ...
    expect(confChunk[0]!.code.includes('svc gives conf no schema') && confChunk[0]!.code.includes('svc runs no conf migrations')).toBe(true);
    expect(files.filter(({ code }) => code.includes('node_modules/semver/')).map(({ f }) => f)).toEqual([]); // ... semver is not
    // ajv only where the MCP SDK validates tool input (`svc mcp`): never beside conf.
    expect(files.filter(({ code }) => code.includes('node_modules/ajv/') && code.includes(CONF)).map(({ f }) => f)).toEqual([]);
    const config = join(work, 'conf-stub-config');
    const add = await runSvc(['profile', 'add', 'stubbed', '--key-stdin', '--no-verify'], { SVC_CONFIG_DIR: config, NO_COLOR: '1' }, { input: 'svc_test_BundleStubKey00000000000001\n' });
    expect(add.code, add.stderr).toBe(0);
    expect(Object.keys((JSON.parse(readFileSync(join(config, 'config.json'), 'utf8')) as { profiles: object }).profiles)).toEqual(['stubbed']);
  });

  it("of llhttp's constants only the two tables undici's client reads are bundled, equal to undici's own", () => {
    const dir = join(ROOT, 'dist', 'bundle');
    const cjs = readdirSync(dir).filter((f) => f.endsWith('.cjs')).map((f) => readFileSync(join(dir, f), 'utf8'));
    // The rest of the module (methods, statuses, character maps) was built at every load.
    expect(cjs.filter((code) => code.includes('METHODS_RTSP') || code.includes('HEADER_CHARS') || code.includes('enumToMap')).length).toBe(0);
    // The two it keeps, every name with its number (as the minified bundle writes them).
    const own = createRequire(import.meta.url)('undici/lib/llhttp/constants.js') as { ERROR: Record<string, number>; TYPE: Record<string, number> };
    const client = cjs.find((code) => code.includes('lib/dispatcher/client-h1.js'))!;
    const pairs = [...Object.entries(own.ERROR), ...Object.entries(own.TYPE)].map(([name, n]) => `${name}:${n}`);
    expect(pairs.length).toBeGreaterThan(30);
    expect(pairs.filter((pair) => !new RegExp(`[{,]${pair}[,}]`).test(client))).toEqual([]);
  });

  it('the HTTP parsers kept beside the chunks are WebAssembly modules: the SIMD one as a binary, the plain one in JavaScript', () => {
    const plain = createRequire(import.meta.url)(join(ROOT, 'dist', 'bundle', 'llhttp-wasm.cjs')) as Buffer;
    const simd = readFileSync(join(ROOT, 'dist', 'bundle', 'llhttp_simd.wasm'));
    for (const wasm of [plain, simd]) {
      // A WebAssembly binary: its magic number and version 1 (the tests' types have no WebAssembly global).
      expect(wasm.subarray(0, 8).toString('hex')).toBe('0061736d01000000');
      expect(wasm.length).toBeGreaterThan(10_000);
    }
    // No chunk carries it as base64 any more (72 kB more to read and cache on every start).
    const chunks = readdirSync(join(ROOT, 'dist', 'bundle')).filter((f) => f.endsWith('.cjs') && f !== 'llhttp-wasm.cjs');
    expect(chunks.filter((f) => readFileSync(join(ROOT, 'dist', 'bundle', f), 'utf8').includes(simd.subarray(0, 48).toString('base64')))).toEqual([]);
  });
});

describe('the code cache (bin/bundle-loader.js)', () => {
  const cacheHome = () => mkdtempSync(join(work, 'cache-'));

  it('a command run again compiles nothing: every file of the bundle it loads comes from the cache', async () => {
    const home = cacheHome();
    const first = await modulesLoadedBy(['--json', 'account'], { XDG_CACHE_HOME: home });
    expect(first.status, first.stderr).toBe(0);
    expect(first.files).toContain('svc.cjs');
    expect(new Set(first.cache)).toEqual(new Set(['compiled']));
    const again = await modulesLoadedBy(['--json', 'account'], { XDG_CACHE_HOME: home });
    expect(again.status, again.stderr).toBe(0);
    expect(again.files.sort()).toEqual(first.files.sort());
    expect(new Set(again.cache)).toEqual(new Set(['accepted']));
    // In the user's cache directory, per build and Node: the directory 0700, the files 0600.
    const root = join(home, 'svc', 'code-cache');
    expect(statSync(root).mode & 0o777).toBe(0o700);
    const [build] = readdirSync(root);
    expect(build).toBe(readFileSync(join(ROOT, 'dist', 'bundle', 'build-id'), 'utf8').trim());
    // One directory per Node and V8 flags: `-liftoff` on Node 20, where bin/svc.js sets --liftoff-only.
    const [node] = readdirSync(join(root, build!));
    expect(node).toBe(`${process.version}-${process.arch}${Number(process.versions.node.split('.')[0]) < 22 ? '-liftoff' : ''}`);
    expect(statSync(join(root, build!, node!, 'svc.cjs')).mode & 0o777).toBe(0o600);
  });

  it('a command run for the first time adds what it compiled to the files it shares with the commands before it', async () => {
    const home = cacheHome();
    expect((await modulesLoadedBy(['--json', 'account'], { XDG_CACHE_HOME: home })).status).toBe(0);
    const log = join(work, 'bundle-loader.log');
    const balance = await modulesLoadedBy(['--json', 'balance'], { XDG_CACHE_HOME: home });
    expect(balance.status, balance.stderr).toBe(0);
    expect(balance.cache[balance.files.indexOf('svc.cjs')]).toBe('accepted');
    expect(readFileSync(log, 'utf8')).toMatch(/^save svc\.cjs$/m); // made again, with balance's functions
    const again = await modulesLoadedBy(['--json', 'balance'], { XDG_CACHE_HOME: home });
    expect(new Set(again.cache)).toEqual(new Set(['accepted']));
    expect(readFileSync(log, 'utf8')).not.toMatch(/^save /m); // nothing new: nothing written
  });

  it('kept apart for the V8 flags bin/svc.js sets (--liftoff-only on Node 20, not for `sandbox start`): neither refuses the other', async () => {
    const home = cacheHome();
    const runs = [];
    for (const args of [['--help'], ['sandbox', 'start', '--help'], ['--help'], ['sandbox', 'start', '--help']]) {
      const r = await modulesLoadedBy(args, { XDG_CACHE_HOME: home });
      expect(r.status, r.stderr).toBe(0);
      runs.push(r.cache);
    }
    expect(new Set([...runs[2]!, ...runs[3]!])).toEqual(new Set(['accepted']));
  });

  it('on Node 20 only the sandbox itself keeps the optimising tier: `sandbox start` without --liftoff-only, every other sandbox command with it', async () => {
    const major = Number(process.versions.node.split('.')[0]);
    const dirsAfter = async (args: string[]) => {
      const home = cacheHome();
      const r = await modulesLoadedBy(args, { XDG_CACHE_HOME: home });
      expect(r.status, r.stderr).toBe(0);
      const root = join(home, 'svc', 'code-cache');
      const [build] = readdirSync(root);
      return readdirSync(join(root, build!));
    };
    const liftoff = `${process.version}-${process.arch}${major < 22 ? '-liftoff' : ''}`;
    // Short commands (a request or two): the background re-compile of undici's parser would double their time.
    for (const args of [['sandbox', 'stop', '--help'], ['sandbox', 'fund', '--help'], ['--json', 'sandbox', 'key', 'ls', '--help'], ['--help']]) {
      expect(await dirsAfter(args), args.join(' ')).toEqual([liftoff]);
    }
    // The server: thousands of requests, where the optimising tier pays.
    expect(await dirsAfter(['sandbox', 'start', '--help'])).toEqual([`${process.version}-${process.arch}`]);
    expect(await dirsAfter(['--json', 'sandbox', 'start', '--help'])).toEqual([`${process.version}-${process.arch}`]);
  });

  it('a cache directory that others may write to is neither read nor written', async () => {
    const home = cacheHome();
    expect((await modulesLoadedBy(['--json', 'account'], { XDG_CACHE_HOME: home })).status).toBe(0);
    const root = join(home, 'svc', 'code-cache');
    chmodSync(root, 0o777);
    const r = await modulesLoadedBy(['--json', 'account'], { XDG_CACHE_HOME: home });
    expect(r.status, r.stderr).toBe(0);
    expect(new Set(r.cache)).toEqual(new Set(['compiled']));
    expect(readFileSync(join(work, 'bundle-loader.log'), 'utf8')).not.toMatch(/^save /m);
  });

  it('a home where no cache directory can be made: the command runs as without a cache', async () => {
    // No XDG_CACHE_HOME, and a home under which even root cannot make a directory.
    const r = await modulesLoadedBy(['--json', 'account'], { HOME: '/dev/null', XDG_CACHE_HOME: '' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('account_id');
    expect(new Set(r.cache)).toEqual(new Set(['compiled']));
    expect(readFileSync(join(work, 'bundle-loader.log'), 'utf8')).not.toMatch(/^save /m);
  });

  it('NODE_DISABLE_COMPILE_CACHE turns it off: nothing read, nothing written', async () => {
    const home = cacheHome();
    const r = await modulesLoadedBy(['--json', 'account'], { XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(r.status, r.stderr).toBe(0);
    expect(new Set(r.cache)).toEqual(new Set(['compiled']));
    expect(existsSync(join(home, 'svc'))).toBe(false);
  });
});
