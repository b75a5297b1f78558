// bin/bundle-loader.js on a bundle of its own: files required once each, stack traces on the
// files' own lines, and the code cache: where it lives, when it is written, when it is not used.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/run.js';
// @ts-expect-error plain JavaScript without types (bin/ is CommonJS that any Node parses)
import * as loaderModule from '../../bin/bundle-loader.js';

interface LoadOptions { dir: string; entry: string; cacheRoot?: string | undefined; command?: string; log?: (line: string) => void; atExit?: (save: () => void) => void }
const loader = loaderModule as unknown as {
  codeCacheDir(env: NodeJS.ProcessEnv): string | undefined;
  commandKey(argv: string[]): string;
  loadBundle(opts: LoadOptions): Record<string, unknown>;
};

const work = mkdtempSync(join(tmpdir(), 'svc-loader-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A bundle as scripts/rechunk.mjs writes one: an entry and chunks that require each other by "./name". */
function bundle(buildId = 'b1'): string {
  const dir = mkdtempSync(join(work, 'bundle-'));
  writeFileSync(join(dir, 'build-id'), `${buildId}\n`);
  writeFileSync(join(dir, 'svc.cjs'), "'use strict';var a=require('./a.cjs'),b=require('./b.cjs'),path=require('node:path');\nexports.run=()=>[a.count(),b.viaA(),path.sep];exports.fail=()=>a.fail();");
  writeFileSync(join(dir, 'a.cjs'), "'use strict';var n=0;exports.count=()=>++n;\nexports.fail=()=>{throw new Error('here')};");
  writeFileSync(join(dir, 'b.cjs'), "'use strict';var a=require('./a.cjs');exports.viaA=()=>a.count();");
  return dir;
}

/** Loads `dir` in this process, without a cache. */
function load(dir: string) {
  return loader.loadBundle({ dir, entry: 'svc.cjs', cacheRoot: undefined });
}

const LOADER = join(ROOT, 'bin', 'bundle-loader.js');

/**
 * Loads `dir` in a process of its own, as bin/svc.js does (V8 keeps what it compiled per process:
 * only another one shows what the cache on disk holds), runs it, and returns the loader's log and,
 * last, `ran <what run() returned>`.
 */
function childScript(dir: string, root: string, command: string): string {
  return `const { loadBundle } = require(${JSON.stringify(LOADER)});
    const m = loadBundle({ dir: ${JSON.stringify(dir)}, entry: 'svc.cjs', cacheRoot: ${JSON.stringify(root)}, command: ${JSON.stringify(command)}, log: (l) => console.log(l) });
    console.log('ran ' + JSON.stringify(m.run()));`;
}
function loadInChild(dir: string, root: string, command = 'account'): string[] {
  const r = spawnSync(process.execPath, ['-e', childScript(dir, root, command)], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}
/** The same, `count` processes at once; resolves to each one's exit code and log. */
function loadInChildren(count: number, dir: string, root: string): Promise<{ code: number | null; lines: string[] }[]> {
  return Promise.all(Array.from({ length: count }, () => new Promise<{ code: number | null; lines: string[] }>((resolve) => {
    const child = spawn(process.execPath, ['-e', childScript(dir, root, 'account')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, lines: out.split('\n').filter(Boolean) }));
  })));
}
const loads = (lines: string[]) => lines.filter((l) => l.startsWith('load'));
const saves = (lines: string[]) => lines.filter((l) => l.startsWith('save')).sort();
const CACHE_DIR = `${process.version}-${process.arch}`;
const COMPILED = ['load svc.cjs compiled', 'load a.cjs compiled', 'load b.cjs compiled'];
const RAN = 'ran [1,2,"/"]';
const asRoot = process.getuid?.() === 0; // only root can make a file of another user's

describe('where the cache lives and which command a run is', () => {
  it('$XDG_CACHE_HOME/svc/code-cache, else ~/.cache/svc/code-cache; none with NODE_DISABLE_COMPILE_CACHE', () => {
    expect(loader.codeCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/svc/code-cache');
    expect(loader.codeCacheDir({ XDG_CACHE_HOME: 'relative' })).toMatch(/\/\.cache\/svc\/code-cache$/); // the XDG rule: absolute or ignored
    expect(loader.codeCacheDir({})).toMatch(/\/\.cache\/svc\/code-cache$/);
    expect(loader.codeCacheDir({ XDG_CACHE_HOME: '/x/cache', NODE_DISABLE_COMPILE_CACHE: '1' })).toBeUndefined();
  });

  it('a command is its first two words that are not options', () => {
    expect(loader.commandKey(['--json', 'transfer', 'ls', '--all'])).toBe('transfer.ls');
    expect(loader.commandKey(['--json', 'balance'])).toBe('balance');
    expect(loader.commandKey(['--help'])).toBe('none');
    expect(loader.commandKey(['--', 'account'])).toBe('none');
    expect(loader.commandKey(['../../Etc', 'x y'])).toBe('______etc.x_y'); // no dot or slash: a file name, never a path
  });
});

describe('loading', () => {
  it('every file once, whoever requires it; other names go to Node', () => {
    const exports = load(bundle());
    expect((exports.run as () => unknown[])()).toEqual([1, 2, join('a', 'b').slice(1, 2)]);
  });

  it("a stack trace points at the file's own line and column", () => {
    const dir = bundle();
    const exports = load(dir);
    const err = (() => {
      try {
        (exports.fail as () => void)();
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.stack).toContain(`${join(dir, 'a.cjs')}:2:25`); // `new Error` on the file's line 2
  });
});

describe('the code cache', () => {
  const newRoot = () => join(mkdtempSync(join(work, 'home-')), 'code-cache');

  it('written at exit for every file, then used: the directories 0700, the files 0600', () => {
    const root = newRoot();
    const dir = bundle();
    const first = loadInChild(dir, root);
    expect(loads(first)).toEqual(COMPILED);
    expect(saves(first)).toEqual(['save a.cjs', 'save b.cjs', 'save svc.cjs']);
    for (const d of [root, join(root, 'b1'), join(root, 'b1', CACHE_DIR), join(root, 'b1', CACHE_DIR, 'commands')]) expect(statSync(d).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'b1', CACHE_DIR, 'a.cjs')).mode & 0o777).toBe(0o600);
    const again = loadInChild(dir, root);
    expect(again).toEqual(['load svc.cjs accepted', 'load a.cjs accepted', 'load b.cjs accepted', RAN]); // and nothing saved
  });

  it('made again once for a command that has not run with it before', () => {
    const root = newRoot();
    const dir = bundle();
    loadInChild(dir, root, 'account');
    const other = loadInChild(dir, root, 'balance');
    expect(loads(other).every((l) => l.endsWith('accepted'))).toBe(true);
    expect(saves(other)).toEqual(['save a.cjs', 'save b.cjs', 'save svc.cjs']);
    expect(saves(loadInChild(dir, root, 'balance'))).toEqual([]);
  });

  it('kept per build: a cache is only used with the code it was made from (V8 checks no more than its length)', () => {
    const root = newRoot();
    const dir = bundle('b1');
    loadInChild(dir, root);
    // The same file names and lengths, other code: another build, another build-id.
    const other = bundle('b2');
    writeFileSync(join(other, 'a.cjs'), "'use strict';var n=5;exports.count=()=>++n;\nexports.fail=()=>{throw new Error('HERE')};");
    const lines = loadInChild(other, root);
    expect(loads(lines).every((l) => l.endsWith('compiled'))).toBe(true);
  });

  it('bound to the exact source: a file changed to other code of the same length, same build-id, runs the new code', () => {
    const root = newRoot();
    const dir = bundle('b1');
    expect(loadInChild(dir, root)).toContain(RAN);
    // As an edit of the installed file would: n starts at 5, same length, and the build-id stays.
    writeFileSync(join(dir, 'a.cjs'), "'use strict';var n=5;exports.count=()=>++n;\nexports.fail=()=>{throw new Error('here')};");
    const next = loadInChild(dir, root);
    expect(next).toContain('load a.cjs stale');
    expect(next).toContain('ran [6,7,"/"]'); // the new code, not the cached old one
    expect(saves(next)).toEqual(['save a.cjs']);
    expect(loadInChild(dir, root)).toEqual(['load svc.cjs accepted', 'load a.cjs accepted', 'load b.cjs accepted', 'ran [6,7,"/"]']);
  });

  it('a file that is not a cache of ours, or one V8 refuses (corrupt, truncated), is compiled from the source and written again', () => {
    const root = newRoot();
    const dir = bundle();
    loadInChild(dir, root);
    const file = join(root, 'b1', CACHE_DIR, 'a.cjs');
    writeFileSync(file, Buffer.from('not a code cache'));
    const next = loadInChild(dir, root);
    expect(next).toContain('load a.cjs stale');
    expect(saves(next)).toEqual(['save a.cjs']);
    // Our header and the source intact, V8's data cut in half, then its first bytes overwritten.
    const good = readFileSync(file);
    const v8Start = 'svc-code-cache-1\n'.length + 4 + readFileSync(join(dir, 'a.cjs')).length; // the loader's header, then the source
    for (const bad of [good.subarray(0, v8Start + (good.length - v8Start) / 2), Buffer.concat([good.subarray(0, v8Start), Buffer.alloc(16, 0xab), good.subarray(v8Start + 16)])]) {
      writeFileSync(file, bad);
      const lines = loadInChild(dir, root);
      expect(lines).toContain('load a.cjs rejected');
      expect(lines).toContain(RAN);
      expect(saves(lines)).toEqual(['save a.cjs']);
      expect(loadInChild(dir, root)).toContain('load a.cjs accepted');
    }
  });

  it('a directory others may write to, or that is not a directory, is neither read nor written', () => {
    const home = mkdtempSync(join(work, 'home-'));
    const root = join(home, 'code-cache');
    const dir = bundle();
    loadInChild(dir, root);
    chmodSync(root, 0o777);
    expect(loadInChild(dir, root)).toEqual([...COMPILED, RAN]);
    chmodSync(root, 0o700);
    // The build's or the Node version's directory writable by the group: the same.
    for (const d of [join(root, 'b1'), join(root, 'b1', CACHE_DIR)]) {
      chmodSync(d, 0o770);
      expect(loadInChild(dir, root)).toEqual([...COMPILED, RAN]);
      chmodSync(d, 0o700);
    }
    expect(loads(loadInChild(dir, root)).every((l) => l.endsWith('accepted'))).toBe(true);
    const file = join(home, 'file');
    writeFileSync(file, '');
    expect(loadInChild(dir, file)).toEqual([...COMPILED, RAN]);
    // A link where the directory should be: not followed.
    const linked = join(home, 'linked');
    symlinkSync(root, linked);
    expect(loadInChild(dir, linked)).toEqual([...COMPILED, RAN]);
  });

  it('a cache file others may write to, or a link, is not used, and is replaced by one of our own', () => {
    const root = newRoot();
    const dir = bundle();
    loadInChild(dir, root);
    const file = join(root, 'b1', CACHE_DIR, 'a.cjs');
    chmodSync(file, 0o620);
    const next = loadInChild(dir, root);
    expect(next).toContain('load a.cjs untrusted');
    expect(saves(next)).toEqual(['save a.cjs']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    rmSync(file);
    symlinkSync(join(root, 'b1', CACHE_DIR, 'b.cjs'), file);
    expect(loadInChild(dir, root)).toContain('load a.cjs compiled');
  });

  it.runIf(asRoot)("a directory or file of another user's is not used", () => {
    const root = newRoot();
    const dir = bundle();
    loadInChild(dir, root);
    const file = join(root, 'b1', CACHE_DIR, 'a.cjs');
    chownSync(file, 65534, 65534);
    expect(loadInChild(dir, root)).toContain('load a.cjs untrusted');
    for (const d of [root, join(root, 'b1', CACHE_DIR)]) {
      chownSync(d, 65534, 65534);
      expect(loadInChild(dir, root)).toEqual([...COMPILED, RAN]);
      chownSync(d, 0, 0);
    }
  });

  it('a cache directory that cannot be made or written: the code runs as without a cache', () => {
    // Even root cannot make a directory under a file.
    expect(loadInChild(bundle(), '/dev/null/code-cache')).toEqual([...COMPILED, RAN]);
    const root = newRoot();
    const dir = bundle();
    mkdirSync(root, { mode: 0o700 });
    writeFileSync(join(root, 'b1'), ''); // where the build's directory would go
    expect(loadInChild(dir, root)).toEqual([...COMPILED, RAN]);
  });

  it('written whole, by a rename: a reader sees the old file or the new, never one being written', async () => {
    const root = newRoot();
    const dir = bundle();
    loadInChild(dir, root);
    const file = join(root, 'b1', CACHE_DIR, 'a.cjs');
    writeFileSync(file, 'not a code cache');
    const old = join(root, 'old');
    linkSync(file, old); // a write in place would change this too
    expect(saves(loadInChild(dir, root))).toEqual(['save a.cjs']);
    expect(readFileSync(old, 'utf8')).toBe('not a code cache');
    expect(readdirSync(join(root, 'b1', CACHE_DIR)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // Many runs writing the same caches at once: each runs, and what is left is whole.
    const fresh = newRoot();
    const runs = await loadInChildren(6, dir, fresh);
    for (const r of runs) expect(r).toEqual({ code: 0, lines: expect.arrayContaining([RAN]) as unknown });
    expect(loadInChild(dir, fresh)).toEqual(['load svc.cjs accepted', 'load a.cjs accepted', 'load b.cjs accepted', RAN]);
  });

  it("removes another build's caches not written for a week when it writes its own", () => {
    const root = newRoot();
    loadInChild(bundle('old'), root);
    loadInChild(bundle('recent'), root);
    const weeksAgo = new Date(statSync(root).mtimeMs - 8 * 24 * 3600 * 1000);
    for (const d of [join(root, 'old'), join(root, 'old', CACHE_DIR)]) utimesSync(d, weeksAgo, weeksAgo);
    loadInChild(bundle('new'), root);
    expect(readdirSync(root).sort()).toEqual(['new', 'recent']);
  });
});
