// bin/bundle-loader.js on a bundle of its own: files required once each, stack traces on the
// files' own lines, and the code cache: where it lives, when it is written, when it is not used.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
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
 * only another one shows what the cache on disk holds), runs it, and returns the loader's log.
 */
function loadInChild(dir: string, root: string, command = 'account'): string[] {
  const script = `const { loadBundle } = require(${JSON.stringify(LOADER)});
    const m = loadBundle({ dir: ${JSON.stringify(dir)}, entry: 'svc.cjs', cacheRoot: ${JSON.stringify(root)}, command: ${JSON.stringify(command)}, log: (l) => console.log(l) });
    m.run();`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}
const saves = (lines: string[]) => lines.filter((l) => l.startsWith('save')).sort();
const CACHE_DIR = `${process.version}-${process.arch}`;

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

  it('written at exit for every file, then used: the directory 0700, the files 0600', () => {
    const root = newRoot();
    const dir = bundle();
    const first = loadInChild(dir, root);
    expect(first.filter((l) => l.startsWith('load'))).toEqual(['load svc.cjs compiled', 'load a.cjs compiled', 'load b.cjs compiled']);
    expect(saves(first)).toEqual(['save a.cjs', 'save b.cjs', 'save svc.cjs']);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'b1', CACHE_DIR, 'a.cjs')).mode & 0o777).toBe(0o600);
    const again = loadInChild(dir, root);
    expect(again).toEqual(['load svc.cjs accepted', 'load a.cjs accepted', 'load b.cjs accepted']); // and nothing saved
  });

  it('made again once for a command that has not run with it before', () => {
    const root = newRoot();
    const dir = bundle();
    loadInChild(dir, root, 'account');
    const other = loadInChild(dir, root, 'balance');
    expect(other.filter((l) => l.startsWith('load')).every((l) => l.endsWith('accepted'))).toBe(true);
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
    expect(lines.filter((l) => l.startsWith('load')).every((l) => l.endsWith('compiled'))).toBe(true);
  });

  it('a cache V8 refuses is compiled from the source and written again', () => {
    const root = newRoot();
    const dir = bundle();
    loadInChild(dir, root);
    writeFileSync(join(root, 'b1', CACHE_DIR, 'a.cjs'), Buffer.from('not a code cache'));
    const next = loadInChild(dir, root);
    expect(next).toContain('load a.cjs rejected');
    expect(saves(next)).toEqual(['save a.cjs']);
    expect(loadInChild(dir, root)).toContain('load a.cjs accepted');
  });

  it('a directory others may write to, or that is not a directory, is neither read nor written', () => {
    const home = mkdtempSync(join(work, 'home-'));
    const root = join(home, 'code-cache');
    const dir = bundle();
    loadInChild(dir, root);
    chmodSync(root, 0o777);
    expect(loadInChild(dir, root)).toEqual(['load svc.cjs compiled', 'load a.cjs compiled', 'load b.cjs compiled']);
    const file = join(home, 'file');
    writeFileSync(file, '');
    expect(loadInChild(dir, file)).toEqual(['load svc.cjs compiled', 'load a.cjs compiled', 'load b.cjs compiled']);
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
