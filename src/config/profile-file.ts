// Reading profiles without loading conf: the hot path of every API command only reads
// config.json. Writes go through ProfileStore (conf), which keeps the same file format.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Profile } from './profile-types.js';

export interface ProfileLookup {
  readonly current: string | null;
  get(name: string): Profile | undefined;
  /** Profile names, sorted. */
  names(): string[];
}

interface FileShape {
  current?: string | null;
  profiles?: Record<string, Profile>;
}

/** A read-only view of <dir>/config.json as it is now (empty when there is none). */
export function readProfiles(dir: string): ProfileLookup {
  let data: FileShape = {};
  try {
    data = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as FileShape;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const profiles = data.profiles ?? {};
  const current = data.current && Object.hasOwn(profiles, data.current) ? data.current : null;
  return {
    current,
    get: (name) => (Object.hasOwn(profiles, name) ? profiles[name] : undefined),
    names: () => Object.keys(profiles).sort((a, b) => a.localeCompare(b)),
  };
}
