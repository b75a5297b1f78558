// Loads the bundle (dist/bundle/*.cjs, CommonJS: scripts/rechunk.mjs) with a code cache of its own.
//
// Node's compile cache (module.enableCompileCache) keeps only what V8 compiled before a module
// first ran: every function a command then calls was parsed and compiled again on every run, about
// a third of svc's own start-up. Here each file is compiled with vm.Script, and its cache is made
// with createCachedData() once the command ran, so it holds those functions too; on Node 20, which
// has no compile cache, it is the only one (docs/performance.md). Plain CommonJS, like all of bin/
// (bin/package.json): it runs before anything of the bundle.
//
// The caches live in the user's own cache directory (codeCacheDir), one directory per build of the
// bundle (its build-id file), Node version and V8 flags; files 0600 in a directory 0700 that must
// belong to this user and be writable by no one else: V8 runs what a cache says without checking
// it against the source (only its length), so a cache someone else could write would be code run
// as this user. A cache is written when there was none or V8 refused it, and when a command runs
// for the first time in that directory (its functions join those of the commands before it),
// never otherwise.
'use strict';
const { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { Script } = require('node:vm');
const { createRequire } = require('node:module');
const { isAbsolute, join } = require('node:path');

/** Build directories unused for this long are removed when another build writes its caches. */
const STALE_MS = 7 * 24 * 60 * 60 * 1000;
/** At most this many commands are remembered per directory (each refreshes the caches once). */
const MAX_COMMANDS = 64;

/**
 * Where the code caches go: $XDG_CACHE_HOME/svc/code-cache, else ~/.cache/svc/code-cache; undefined
 * when NODE_DISABLE_COMPILE_CACHE is set (no cache, as for Node's own) or there is no home.
 */
function codeCacheDir(env) {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'svc', 'code-cache');
  try {
    const home = require('node:os').homedir();
    return home ? join(home, '.cache', 'svc', 'code-cache') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The command a run's caches are made for: its first two words that are not options ("transfer
 * ls"), made safe for a file name.
 */
function commandKey(argv) {
  const words = [];
  for (const a of argv) {
    if (a === '--' || words.length === 2) break;
    if (!a.startsWith('-')) words.push(a.toLowerCase().replace(/[^a-z0-9_-]/g, '_').slice(0, 24));
  }
  return words.join('.') || 'none';
}

/** Whether `dir` is a real directory of this user's that no one else may write to. */
function ownedPrivateDir(dir) {
  const st = lstatSync(dir);
  if (!st.isDirectory()) return false;
  if (process.platform === 'win32') return true;
  return st.uid === process.getuid() && (st.mode & 0o022) === 0;
}

/**
 * The cache directory for this build, Node and V8 flags (`flags`: a name for those the shim set,
 * e.g. "liftoff": V8 refuses a cache made under other flags), if it is safe to use (see above);
 * never throws.
 */
function openCache(root, buildId, command, flags) {
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    if (!ownedPrivateDir(root)) return undefined;
    const dir = join(root, buildId, `${process.version}-${process.arch}${flags ? `-${flags}` : ''}`);
    const seen = join(dir, 'commands', command);
    return { root, dir, buildId, seen, fresh: !existsSync(seen) };
  } catch {
    return undefined;
  }
}

/** Writes every cache that needs it (see above); never throws: a cache is only ever a saving. */
function saveCaches(cache, scripts, log) {
  try {
    if (!cache.fresh && scripts.every((s) => s.status === 'accepted')) return;
    mkdirSync(join(cache.dir, 'commands'), { recursive: true, mode: 0o700 });
    for (const s of scripts) {
      if (s.status === 'accepted' && !cache.fresh) continue;
      const file = join(cache.dir, s.name);
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, s.script.createCachedData(), { mode: 0o600 });
      renameSync(tmp, file);
      log?.(`save ${s.name}`);
    }
    if (cache.fresh && readdirSync(join(cache.dir, 'commands')).length < MAX_COMMANDS) closeSync(openSync(cache.seen, 'w', 0o600));
    pruneOtherBuilds(cache);
  } catch {
    // an unwritable cache directory: the next run compiles again
  }
}

/**
 * Removes the directories of other builds last written a week or more before this one (file
 * times only: svc reads the clock in one place, src/clock.ts).
 */
function pruneOtherBuilds(cache) {
  const now = statSync(cache.dir).mtimeMs;
  for (const name of readdirSync(cache.root)) {
    if (name === cache.buildId) continue;
    const dir = join(cache.root, name);
    // A build's last write shows in the time of its Node directories (a file written in one).
    const last = Math.max(statSync(dir).mtimeMs, ...readdirSync(dir).map((n) => statSync(join(dir, n)).mtimeMs));
    if (now - last > STALE_MS) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `<dir>/<entry>` and returns its exports. Every file it requires by a relative name
 * ("./chunk-X.cjs") is loaded here too, once; any other name (a builtin, libsql) goes to Node's
 * require. `cacheRoot` (codeCacheDir) undefined: no cache. `command`: commandKey(argv). `flags`:
 * the V8 flags the caller set, by name (openCache). `log`:
 * told `load <file> <accepted|rejected|compiled>` and `save <file>` (SVC_DEBUG_CODE_CACHE).
 * The caches are written when the process exits (`atExit`: tests call it themselves).
 */
function loadBundle({ dir, entry, cacheRoot, command = 'none', flags = '', log, atExit = (save) => process.on('exit', save) }) {
  const cache = cacheRoot === undefined ? undefined : openCache(cacheRoot, readFileSync(join(dir, 'build-id'), 'utf8').trim(), command, flags);
  const modules = new Map();
  const scripts = [];
  const outside = createRequire(join(dir, entry));
  const load = (name) => {
    const known = modules.get(name);
    if (known) return known.exports;
    const filename = join(dir, name);
    let cachedData;
    if (cache) {
      try {
        cachedData = readFileSync(join(cache.dir, name));
      } catch {
        // none yet
      }
    }
    // The wrapper on a line of its own (lineOffset -1): stack traces keep the file's own lines and columns.
    const script = new Script(`(function (exports, require, module, __filename, __dirname) {\n${readFileSync(filename, 'utf8')}\n})`, { filename, lineOffset: -1, cachedData });
    const status = cachedData === undefined ? 'compiled' : script.cachedDataRejected ? 'rejected' : 'accepted';
    log?.(`load ${name} ${status}`);
    const module = { exports: {}, id: filename, filename, loaded: false };
    modules.set(name, module);
    try {
      script.runInThisContext()(module.exports, requireFrom, module, filename, dir);
    } catch (err) {
      // As Node's require(): a file that failed is loaded afresh next time, and not cached.
      modules.delete(name);
      throw err;
    }
    module.loaded = true;
    scripts.push({ name, script, status });
    return module.exports;
  };
  const requireFrom = (id) => (id.startsWith('./') ? load(id.slice(2)) : outside(id));
  if (cache) atExit(() => saveCaches(cache, scripts, log));
  return load(entry);
}

module.exports = { codeCacheDir, commandKey, loadBundle };
