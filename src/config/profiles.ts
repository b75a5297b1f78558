// The writable profiles: <config dir>/config.json (0600, directory 0700). Reads see the file as
// it is now; every change is read-modify-write of the whole file under the config lock
// (config-lock.ts), so concurrent commands changing different profiles all land. conf writes the
// file (atomically: a temp file beside it, then a rename); the lock around it is ours, since
// conf's own read-modify-write is not safe across processes.
import Conf from 'conf';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { realClock, type Clock } from '../clock.js';
import { CliError } from '../errors.js';
import { withLock, withLockIfFree } from './config-lock.js';
import { configDir, ensurePrivateDir } from './paths.js';
import { CONFIG_FILE, readConfig, type ProfileConfig, type ProfileLookup } from './profile-file.js';
import { checkPrivatePath } from './safe-path.js';

import type { Profile } from './profile-types.js';

export type { Profile } from './profile-types.js';
export type { ProfileConfig } from './profile-file.js';

export { PROFILE_NAME_RE } from './profile-types.js';

export function profileNotFound(name: string): CliError {
  return new CliError('not_found', 'profile_not_found', `profile "${name}" does not exist`, { hint: 'run `svc profile ls`' });
}

export class ProfileStore implements ProfileLookup {
  readonly path: string;
  private readonly lockPath: string;
  private readonly clock: Clock;

  constructor(readonly dir: string = configDir(), opts: { clock?: Clock } = {}) {
    this.path = join(dir, CONFIG_FILE);
    this.lockPath = `${this.path}.lock`;
    this.clock = opts.clock ?? realClock;
    checkPrivatePath(dir, 'config directory');
    checkPrivatePath(this.path, 'config file');
    ensurePrivateDir(dir);
    // Written 0600; tighten a file left by an older version or by hand.
    if (existsSync(this.path)) chmodSync(this.path, 0o600);
  }

  private read(): ProfileConfig {
    return readConfig(this.dir);
  }

  list(): Array<{ name: string; profile: Profile; current: boolean }> {
    return this.read().list();
  }

  names(): string[] {
    return this.read().names();
  }

  get(name: string): Profile | undefined {
    return this.read().get(name);
  }

  has(name: string): boolean {
    return this.read().has(name);
  }

  get current(): string | null {
    return this.read().current;
  }

  /**
   * Reads the config, lets `change` (synchronous) edit it, and writes it back, all holding the
   * lock; what `change` throws leaves the file as it was. Waits for the lock on the clock.
   */
  update<T>(change: (config: ProfileConfig) => T): Promise<T> {
    return withLock(this.lockPath, this.clock, () => this.apply(change));
  }

  /** update() if the lock is free now, else nothing (for a cache that must not wait). */
  updateIfFree(change: (config: ProfileConfig) => void): boolean {
    return withLockIfFree(this.lockPath, () => this.apply(change));
  }

  private apply<T>(change: (config: ProfileConfig) => T): T {
    const config = this.read();
    const before = config.serialize();
    const result = change(config);
    const after = config.serialize();
    if (after !== before) this.write(after);
    return result;
  }

  /** Replaces config.json with `serialized` (ProfileConfig's JSON: own keys only, "__proto__" included). */
  private write(serialized: string): void {
    // Made here, under the lock: conf reads (and may write) the file when it is constructed.
    const conf = new Conf<Record<string, unknown>>({ cwd: this.dir, configName: 'config', projectName: 'svc', configFileMode: 0o600 });
    conf.store = JSON.parse(serialized) as Record<string, unknown>;
  }

  set(name: string, profile: Profile, opts: { makeCurrent?: boolean } = {}): Promise<void> {
    return this.update((config) => config.set(name, profile, opts));
  }

  /** Makes `name` current; profile_not_found if it does not exist (now, under the lock). */
  use(name: string): Promise<void> {
    return this.update((config) => {
      if (!config.get(name)) throw profileNotFound(name);
      config.use(name);
    });
  }

  /** Removes `name`; profile_not_found if nothing is stored under it (now, under the lock). */
  remove(name: string): Promise<void> {
    return this.update((config) => {
      if (!config.delete(name)) throw profileNotFound(name);
    });
  }
}
