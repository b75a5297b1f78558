// Profiles stored with conf in <config dir>/config.json (0600, directory 0700).
import Conf from 'conf';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { configDir, ensurePrivateDir } from './paths.js';
import { checkPrivatePath } from './safe-path.js';

import type { Profile } from './profile-types.js';

export type { Profile } from './profile-types.js';

interface StoreShape {
  current: string | null;
  profiles: Record<string, Profile>;
}

export { PROFILE_NAME_RE } from './profile-types.js';

export class ProfileStore {
  private readonly conf: Conf<StoreShape>;
  readonly path: string;

  constructor(readonly dir: string = configDir()) {
    checkPrivatePath(dir, 'config directory');
    checkPrivatePath(join(dir, 'config.json'), 'config file');
    ensurePrivateDir(dir);
    this.conf = new Conf<StoreShape>({
      cwd: dir,
      configName: 'config',
      projectName: 'svc',
      configFileMode: 0o600,
      defaults: { current: null, profiles: {} },
    });
    this.path = join(dir, 'config.json');
    // conf only applies the mode when it writes; tighten a file left by an older version.
    if (existsSync(this.path)) chmodSync(this.path, 0o600);
  }

  list(): Array<{ name: string; profile: Profile; current: boolean }> {
    const { current, profiles } = this.conf.store;
    return Object.entries(profiles)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, profile]) => ({ name, profile, current: name === current }));
  }

  names(): string[] {
    return this.list().map((p) => p.name);
  }

  get(name: string): Profile | undefined {
    return this.conf.store.profiles[name];
  }

  get current(): string | null {
    const c = this.conf.store.current;
    return c && this.conf.store.profiles[c] ? c : null;
  }

  set(name: string, profile: Profile, opts: { makeCurrent?: boolean } = {}): void {
    const store = this.conf.store;
    const profiles = { ...store.profiles, [name]: profile };
    const current = opts.makeCurrent || !store.current || !profiles[store.current] ? name : store.current;
    this.conf.store = { current, profiles };
  }

  use(name: string): void {
    this.conf.set('current', name);
  }

  remove(name: string): void {
    const { current, profiles } = this.conf.store;
    const rest = { ...profiles };
    delete rest[name];
    this.conf.store = { current: current === name ? null : current, profiles: rest };
  }
}
