// Loads the bundle (dist/bundle/*.cjs, CommonJS: scripts/rechunk.mjs) with a code cache of its own.
//
// Node's compile cache (module.enableCompileCache) keeps only what V8 compiled before a module
// first ran: every function a command then calls was parsed and compiled again on every run, about
// a third of svc's own start-up. Here each file is compiled with vm.Script, and its cache is made
// with createCachedData() once the command ran, so it holds those functions too; on Node 20, which
// has no compile cache, it is the only one (docs/performance-startup.md). Plain CommonJS, like all of bin/
// (bin/package.json): it runs before anything of the bundle.
//
// The caches live in the user's own cache directory (codeCacheDir), one directory per build of the
// bundle (its build-id file), Node version and V8 flags. A cache file is code this process runs,
// and V8 checks it against the source's length only, so: every directory must belong to this user
// and be writable by no one else (made 0700), and so must each file (written 0600, whole: a
// temporary file, then a rename, so a concurrent run never reads half of one); and each file
// carries the exact source it was made from, used only if that is byte for byte the file about to
// run (a memcmp: hashing would need node:crypto, 6-7 ms to load). Anything else: compiled from the
// source as if there were no cache. A cache is written when there was none or it was not used,
// and when a command runs for the first time in that directory (its functions join those of the
// commands before it), never otherwise. It holds compiled code only: no argument, answer, key or
// amount of any run.
'use strict';
const { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } = require('node:fs');
const { Script } = require('node:vm');
const { createRequire } = require('node:module');
const { isAbsolute, join } = require('node:path');

/** Build directories unused for this long are removed when another build writes its caches. */
const STALE_MS = 7 * 24 * 60 * 60 * 1000;
/** At most this many commands are remembered per directory (each refreshes the caches once). */
const MAX_COMMANDS = 64;
/** A cache file: this magic, the source's length (u32 LE), the source, then V8's cached data. */
const MAGIC = Buffer.from('svc-code-cache-1\n');
const HEADER = MAGIC.length + 4;

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

/** Whether `st` (an lstat or fstat) is this user's and no one else may write to it. */
function ownedPrivate(st) {
  if (process.platform === 'win32') return true;
  return st.uid === process.getuid() && (st.mode & 0o022) === 0;
}

/** Whether `dir` is a real directory (not a link) of this user's that no one else may write to. */
function ownedPrivateDir(dir) {
  const st = lstatSync(dir);
  return st.isDirectory() && ownedPrivate(st);
}

/** Whether each of `dirs` that exists is ownedPrivateDir (one that does not yet is made 0700). */
function privateIfThere(dirs) {
  return dirs.every((d) => !existsSync(d) || ownedPrivateDir(d));
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
    const build = join(root, buildId);
    const dir = join(build, `${process.version}-${process.arch}${flags ? `-${flags}` : ''}`);
    const commands = join(dir, 'commands');
    if (!privateIfThere([build, dir, commands])) return undefined;
    const seen = join(commands, command);
    return { root, build, dir, commands, buildId, seen, fresh: !existsSync(seen) };
  } catch {
    return undefined;
  }
}

/**
 * V8's cached data for `source` (a Buffer) from `file`, with why it is not there otherwise:
 * `none`, `untrusted` (not a plain file of this user's that only they may write), or `stale` (made
 * from other source, or not a cache of ours at all); never throws.
 */
function readCache(file, source) {
  let fd;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return { why: 'none' };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || !ownedPrivate(st)) return { why: 'untrusted' };
    const bytes = readFileSync(fd);
    const length = bytes.length >= HEADER ? bytes.readUInt32LE(MAGIC.length) : -1;
    const ours = length === source.length && bytes.subarray(0, MAGIC.length).equals(MAGIC) && bytes.length > HEADER + length;
    if (!ours || !bytes.subarray(HEADER, HEADER + length).equals(source)) return { why: 'stale' };
    return { data: bytes.subarray(HEADER + length) };
  } catch {
    return { why: 'none' };
  } finally {
    closeSync(fd);
  }
}

/** Writes `file` whole (see above): readers see the old file or the new one, never a part. */
function writeCache(file, source, data) {
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true }); // one a killed run of the same pid left
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    const length = Buffer.alloc(4);
    length.writeUInt32LE(source.length);
    for (const part of [MAGIC, length, source, data]) {
      for (let at = 0; at < part.length; ) at += writeSync(fd, part, at);
    }
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, file);
}

/** Writes every cache that needs it (see above); never throws: a cache is only ever a saving. */
function saveCaches(cache, scripts, log) {
  try {
    if (!cache.fresh && scripts.every((s) => s.status === 'accepted')) return;
    mkdirSync(cache.commands, { recursive: true, mode: 0o700 });
    if (!privateIfThere([cache.build, cache.dir, cache.commands])) return;
    for (const s of scripts) {
      if (s.status === 'accepted' && !cache.fresh) continue;
      writeCache(join(cache.dir, s.name), s.source, s.script.createCachedData());
      log?.(`save ${s.name}`);
    }
    if (cache.fresh && readdirSync(cache.commands).length < MAX_COMMANDS) closeSync(openSync(cache.seen, 'w', 0o600));
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
 * told `load <file> <accepted|rejected|stale|untrusted|compiled>` and `save <file>`
 * (SVC_DEBUG_CODE_CACHE).
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
    const source = readFileSync(filename);
    const cached = cache ? readCache(join(cache.dir, name), source) : { why: 'none' };
    // The wrapper on a line of its own (lineOffset -1): stack traces keep the file's own lines and columns.
    const script = new Script(`(function (exports, require, module, __filename, __dirname) {\n${source.toString('utf8')}\n})`, { filename, lineOffset: -1, cachedData: cached.data });
    const status = cached.data === undefined ? (cached.why === 'none' ? 'compiled' : cached.why) : script.cachedDataRejected ? 'rejected' : 'accepted';
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
    scripts.push({ name, script, source, status });
    return module.exports;
  };
  const requireFrom = (id) => (id.startsWith('./') ? load(id.slice(2)) : outside(id));
  if (cache) atExit(() => saveCaches(cache, scripts, log));
  return load(entry);
}

module.exports = { codeCacheDir, commandKey, loadBundle };
