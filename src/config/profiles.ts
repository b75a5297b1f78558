// The writable profiles: <config dir>/config.json (0600, directory 0700). Reads see the file as
// it is now; every change is read-modify-write of the whole file under the config lock
// (config-lock.ts), so concurrent commands changing different profiles all land. conf writes the
// file (atomically: a temp file beside it, then a rename); the lock around it is ours, since
// conf's own read-modify-write is not safe across processes.
import Conf from 'conf';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { realClock, type Clock } from '../clock.js';
import { CliError } from '../errors.js';
import { withLock, withLockIfFree } from './config-lock.js';
import { configDir, ensurePrivateDir } from './paths.js';
import { CONFIG_FILE, readConfig, type ProfileConfig, type ProfileLookup, type StoredProfile } from './profile-file.js';
import { checkPrivatePath } from './safe-path.js';
import { CredentialStore, directoryIdentity, snapshot } from './credentials/store.js';

import type { Profile, SecretsStore } from './profile-types.js';

export type { Profile } from './profile-types.js';
export type { ProfileConfig, StoredProfile } from './profile-file.js';

export { PROFILE_NAME_RE } from './profile-types.js';

export function profileNotFound(name: string): CliError {
  return new CliError('not_found', 'profile_not_found', `profile "${name}" does not exist`, { hint: 'run `svc profile ls`' });
}

export class ProfileStore implements ProfileLookup {
  readonly path: string;
  private readonly lockPath: string;
  private readonly clock: Clock;

  /** Where secrets are read from and written to (the factory shares one with the settings' reader). */
  readonly credentials: CredentialStore;

  constructor(readonly dir: string = configDir(), opts: { clock?: Clock; credentials?: CredentialStore } = {}) {
    this.path = join(dir, CONFIG_FILE);
    this.lockPath = `${this.path}.lock`;
    this.clock = opts.clock ?? realClock;
    // Without one (tests, scripts: not a command run), new profiles keep their secrets in the file;
    // keyring profiles are still read from and written to the keyring.
    this.credentials = opts.credentials ?? new CredentialStore({ env: { ...process.env, SVC_CREDENTIAL_STORE: 'file' }, dir });
    checkPrivatePath(dir, 'config directory');
    checkPrivatePath(this.path, 'config file');
    ensurePrivateDir(dir);
    // Written 0600; tighten a file left by an older version or by hand.
    if (existsSync(this.path)) chmodSync(this.path, 0o600);
  }

  private read(): ProfileConfig {
    return readConfig(this.dir);
  }

  /**
   * Reads the secrets of the named keyring profiles (all of them by default) from the keyring, so
   * that get() and list() return them whole; one that cannot be read throws keyring_unavailable
   * when it is used. Reads after this see the file as it is then, with these secrets.
   */
  async load(names?: readonly string[]): Promise<void> {
    const config = this.read();
    await this.credentials.load(config, names ?? config.keyringNames());
  }

  /** The config as it is now, with the secrets this run has loaded. */
  private readLoaded(): ProfileConfig {
    const config = this.read();
    this.credentials.hydrateCached(config);
    return config;
  }

  list(): Array<{ name: string; profile: Profile; current: boolean }> {
    return this.readLoaded().list();
  }

  names(): string[] {
    return this.read().names();
  }

  get(name: string): Profile | undefined {
    return this.readLoaded().get(name);
  }

  peek(name: string): StoredProfile | undefined {
    return this.read().peek(name);
  }

  /** Where a profile's secrets live. */
  storeOf(name: string): SecretsStore | undefined {
    return this.read().storeOf(name);
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
   * Keyring profiles are read whole first; secrets go where their profile's store says (a new
   * profile's: SVC_CREDENTIAL_STORE), the keyring written before config.json, old entries removed after.
   */
  update<T>(change: (config: ProfileConfig) => T): Promise<T> {
    return withLock(this.lockPath, this.clock, async () => {
      // No await unless the keyring is involved: a change of file profiles is written in the
      // turn that took the lock, as before keyrings.
      const config = this.readLoaded();
      const unread = config.keyringNames().filter((n) => !config.isLoaded(n));
      if (unread.length > 0) await this.credentials.load(config, unread);
      const before = config.serialize();
      const keyring = snapshot(config);
      const result = change(config);
      const cleanUp = this.credentials.involved(config, keyring)
        ? await this.credentials.settle(config, keyring, this.path, () => randomBytes(16).toString('hex'))
        : undefined;
      const after = config.serialize();
      if (after !== before) this.write(after);
      await cleanUp?.();
      return result;
    });
  }

  /**
   * update() if the lock is free now, else nothing (for a cache that must not wait): for changes
   * that leave secrets alone (the account cache); one that moves a secret throws.
   */
  updateIfFree(change: (config: ProfileConfig) => void): boolean {
    return withLockIfFree(this.lockPath, () => {
      const config = this.readLoaded();
      const before = config.serialize();
      const keyring = JSON.stringify([...snapshot(config).state]);
      change(config); // a new profile stays in the file
      if (JSON.stringify([...snapshot(config).state]) !== keyring) {
        throw new Error('updateIfFree cannot move secrets');
      }
      const after = config.serialize();
      if (after !== before) this.write(after);
    });
  }

  /** Replaces config.json with `serialized` (ProfileConfig's JSON: own keys only, "__proto__" included). */
  private write(serialized: string): void {
    // Made here, under the lock: conf reads (and may write) the file when it is constructed.
    const conf = new Conf<Record<string, unknown>>({ cwd: this.dir, configName: 'config', projectName: 'svc', configFileMode: 0o600 });
    conf.store = JSON.parse(serialized) as Record<string, unknown>;
  }

  /**
   * A copied config directory takes keyring entries of its own (`profile migrate --own-keyring`):
   * the secrets of its keyring profiles are read from the original's entries (the one time a copy
   * reads them, asked for by name) and written under a new keyring id of this directory's; the
   * original's entries stay. Returns the profiles moved; none when the entries are this
   * directory's already. A profile that cannot be read fails it, nothing changed.
   */
  ownKeyring(): Promise<string[]> {
    return withLock(this.lockPath, this.clock, async () => {
      const config = this.read();
      if (!this.credentials.foreignEntries(config)) return [];
      const names = config.keyringNames();
      await this.credentials.load(config, names, { original: true });
      for (const name of names) config.get(name); // keyring_unavailable when one cannot be read
      const before = snapshot(config);
      config.replaceKeyringId(randomBytes(16).toString('hex'));
      const here = directoryIdentity(this.dir);
      if (here !== undefined) config.setKeyringHome({ id: here, path: this.dir });
      const cleanUp = await this.credentials.settle(config, before, this.path, () => randomBytes(16).toString('hex'));
      this.write(config.serialize());
      await cleanUp();
      return names;
    });
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
