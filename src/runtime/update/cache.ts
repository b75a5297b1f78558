// <config dir>/update-check.json (0600): what the last registry check found and when the notice
// was last shown. Holds versions and times only. Written whole (a temp file, then a rename).
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir, ensurePrivateDir } from '../../config/paths.js';
import { checkPrivatePath } from '../../config/safe-path.js';

export interface UpdateCache {
  /** When a check was last started (ms, the tool's clock). */
  checked_at?: number;
  /** The registry's latest version, as last seen. */
  latest?: string;
  /** When the notice was last shown. */
  notified_at?: number;
}

export function cacheFile(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'update-check.json');
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function readCache(env: NodeJS.ProcessEnv): UpdateCache {
  const file = cacheFile(env);
  checkPrivatePath(configDir(env), 'config directory');
  checkPrivatePath(file, 'config file');
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const cache: UpdateCache = {};
    if (num(data.checked_at) !== undefined) cache.checked_at = num(data.checked_at);
    if (num(data.notified_at) !== undefined) cache.notified_at = num(data.notified_at);
    if (typeof data.latest === 'string') cache.latest = data.latest;
    return cache;
  } catch {
    return {}; // none yet, or unreadable: as if never checked
  }
}

export function writeCache(env: NodeJS.ProcessEnv, cache: UpdateCache): void {
  const dir = configDir(env);
  ensurePrivateDir(dir);
  const file = cacheFile(env);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(cache)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}
