// config.json as data. Profiles are kept in a Map, so a name is only ever a key: `constructor`,
// `toString` or `__proto__` are profiles like any other, never properties inherited from
// Object.prototype. Reading needs nothing else (the hot path of every API command); writing
// goes through ProfileStore (profiles.ts): conf writes the file, under the config lock.
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

export const CONFIG_FILE = 'config.json';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A usable profile: an object with a string key and base URL (a hand-made entry may be anything). */
function isProfile(v: unknown): v is Profile {
  return isRecord(v) && typeof v.apiKey === 'string' && typeof v.baseUrl === 'string';
}

/**
 * The contents of config.json. Entries that are not usable profiles are invisible to lookups but
 * kept as they are when the file is written, like any top-level field this version does not know.
 */
export class ProfileConfig implements ProfileLookup {
  private constructor(
    private currentName: string | null,
    private readonly entries: Map<string, unknown>,
    private readonly others: Map<string, unknown>,
  ) {}

  static empty(): ProfileConfig {
    return new ProfileConfig(null, new Map(), new Map());
  }

  /** Parses the text of `file` (undefined: there is no file yet). */
  static parse(text: string | undefined, file: string): ProfileConfig {
    if (text === undefined) return ProfileConfig.empty();
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
    if (!isRecord(data) || (data.profiles !== undefined && !isRecord(data.profiles))) {
      throw new UsageError(`the config file ${file} is not valid JSON`, 'fix it, or move it away and add your profiles again', 'unsafe_config');
    }
    // Object.entries lists own keys only; JSON.parse makes "__proto__" an own key like any other.
    const entries = new Map(Object.entries(data.profiles ?? {}));
    const others = new Map(Object.entries(data).filter(([k]) => k !== 'current' && k !== 'profiles'));
    return new ProfileConfig(typeof data.current === 'string' ? data.current : null, entries, others);
  }

  /** The current profile's name, when it names a usable profile. */
  get current(): string | null {
    return this.currentName !== null && this.get(this.currentName) ? this.currentName : null;
  }

  get(name: string): Profile | undefined {
    const entry = this.entries.get(name);
    return isProfile(entry) ? entry : undefined;
  }

  /** Whether anything is stored under `name` (a usable profile or not). */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  names(): string[] {
    return [...this.entries.keys()].filter((n) => this.get(n)).sort((a, b) => a.localeCompare(b));
  }

  list(): Array<{ name: string; profile: Profile; current: boolean }> {
    const current = this.current;
    return this.names().map((name) => ({ name, profile: this.get(name)!, current: name === current }));
  }

  /** Adds or replaces a profile; it becomes current when asked, or when no usable profile is. */
  set(name: string, profile: Profile, opts: { makeCurrent?: boolean } = {}): void {
    this.entries.set(name, profile);
    if (opts.makeCurrent || this.current === null) this.currentName = name;
  }

  use(name: string): void {
    this.currentName = name;
  }

  /** Makes `previous` current again (none when it is gone or null): an ephemeral sandbox stopping. */
  handBack(previous: string | null): void {
    this.currentName = previous !== null && this.get(previous) ? previous : null;
  }

  /** Removes whatever is stored under `name`; the current profile is unset if it was this one. */
  delete(name: string): boolean {
    if (!this.entries.delete(name)) return false;
    if (this.currentName === name) this.currentName = null;
    return true;
  }

  /** The file's text (tab-indented, as earlier versions wrote it). */
  serialize(): string {
    // Object.fromEntries defines each key as an own data property: "__proto__" included.
    const doc = Object.fromEntries([
      ['current', this.currentName],
      ['profiles', Object.fromEntries(this.entries)],
      ...this.others,
    ]);
    return JSON.stringify(doc, undefined, '\t');
  }
}

/** <dir>/config.json as it is now (empty when there is none), after the safety checks. */
export function readConfig(dir: string): ProfileConfig {
  const file = join(dir, CONFIG_FILE);
  checkPrivatePath(dir, 'config directory');
  checkPrivatePath(file, 'config file');
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return ProfileConfig.parse(text, file);
}

/** A read-only view of <dir>/config.json as it is now (empty when there is none). */
export function readProfiles(dir: string): ProfileLookup {
  return readConfig(dir);
}
