// Reading profiles without loading conf: the hot path of every API command only reads
// config.json. Writes go through ProfileStore (conf), which keeps the same file format.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Profile } from './profile-types.js';
import { checkPrivatePath } from './safe-path.js';
import { UsageError } from '../errors.js';

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
  const file = join(dir, 'config.json');
  checkPrivatePath(dir, 'config directory');
  checkPrivatePath(file, 'config file');
  let data: FileShape = {};
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text !== undefined) {
    try {
      data = JSON.parse(text) as FileShape;
    } catch {
      throw new UsageError(`the config file ${file} is not valid JSON`, 'fix it, or move it away and add your profiles again', 'unsafe_config');
    }
  }
  const profiles = data.profiles ?? {};
  const current = data.current && Object.hasOwn(profiles, data.current) ? data.current : null;
  return {
    current,
    get: (name) => (Object.hasOwn(profiles, name) ? profiles[name] : undefined),
    names: () => Object.keys(profiles).sort((a, b) => a.localeCompare(b)),
  };
}
