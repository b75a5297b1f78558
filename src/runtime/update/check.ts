// The registry check, run in a process of its own (`svc __update-check`, started detached by
// the notice) so that no command waits for it: asks the registry for the package's latest
// version and stores it in the cache for a later run to show. Silent; gives up after 5 s.
import { PACKAGE_NAME } from '../../version.js';
import { isAnnounceableVersion } from '../../domain/semver.js';
import { readCache, writeCache } from './cache.js';

export const UPDATE_CHECK_ARG = '__update-check';
const TIMEOUT_MS = 5000;
const MAX_BYTES = 1 << 20;

/** SVC_UPDATE_REGISTRY, else npm's registry setting, else the public npm registry. */
export function registryUrl(env: NodeJS.ProcessEnv): string {
  const url = env.SVC_UPDATE_REGISTRY || env.npm_config_registry || 'https://registry.npmjs.org/';
  return url.endsWith('/') ? url : `${url}/`;
}

/** The registry's path for a package: a scoped name's slash is escaped, as npm does. */
export function packagePath(name: string): string {
  return name.startsWith('@') ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name);
}

async function readCapped(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BYTES) {
      await reader.cancel();
      throw new Error('too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Asks the registry; stores the latest version it names. Never throws. */
export async function checkRegistry(env: NodeJS.ProcessEnv, name = PACKAGE_NAME): Promise<void> {
  try {
    const res = await fetch(`${registryUrl(env)}${packagePath(name)}`, {
      // The abbreviated document (dist-tags and versions only); no credentials are ever sent.
      headers: { accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8' },
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok) return;
    const doc = JSON.parse(await readCapped(res)) as { 'dist-tags'?: { latest?: unknown } };
    const latest = doc['dist-tags']?.latest;
    if (typeof latest !== 'string' || !isAnnounceableVersion(latest)) return;
    writeCache(env, { ...readCache(env), latest });
  } catch {
    // no answer, a bad answer, an unwritable cache: no notice, and no error either
  }
}
