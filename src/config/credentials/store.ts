// Where profiles' secrets are read from and written to: the OS keyring or config.json. One per
// command run (the factory's), so the keyring is opened, and each entry read, at most once.
// Reading loads only the profiles asked for; saving a change (ProfileStore.update) decides the store
// of new profiles (SVC_CREDENTIAL_STORE: auto, keyring, file), writes the keyring entries whose
// secrets changed before config.json, and removes the entries a change left behind after it.
import type { ProfileConfig } from '../profile-file.js';
import { statSync } from 'node:fs';
import { CliError } from '../../errors.js';
import { svc } from '../../domain/shell-command.js';
import { configDir } from '../paths.js';
import { openKeyring, failureOf, type Keyring, type KeyringOpening } from './keyring.js';
import { KEYRING_SERVICE, keyringAccount, parseSecrets, type ProfileSecrets } from './secrets.js';
import { keyringTimeoutMs, storeSetting } from './setting.js';
import { fallbackWarning, keyringUnavailable, type Unavailable } from './unavailable.js';

export interface CredentialOptions {
  env: NodeJS.ProcessEnv;
  /** The config directory whose entries these are (default: the environment's). */
  dir?: string;
  /** Where the one-time fallback warning goes (stderr). */
  warn?: (text: string) => void;
  /** The native module's loader (tests: one that fails to load). */
  load?: () => Promise<unknown>;
}

/** The keyring profiles before a change, their loaded secrets as text, and the keyring id. */
export interface KeyringSnapshot {
  names: string[];
  state: Map<string, string>;
  id?: string;
}

export function snapshot(config: ProfileConfig): KeyringSnapshot {
  const id = config.keyringId;
  return { names: config.keyringNames(), state: config.keyringState(), ...(id ? { id } : {}) };
}

/** A directory's identity: its device and inode (a copy has others; a rename keeps them). */
export function directoryIdentity(dir: string): string | undefined {
  try {
    const st = statSync(dir);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * A config directory copied from another (`cp -a`): its config.json names the keyring entries
 * of the original. It neither reads, replaces nor removes them; it says what to do.
 */
function copiedConfig(home: string, here: string): CliError {
  return new CliError('failure', 'keyring_of_another_config', `this config directory (${here}) is a copy of ${home}: the OS keyring entries of its keyring profiles belong to that directory, and this one neither reads, replaces nor removes them`, {
    hint: `give this directory entries of its own: ${svc`profile migrate --own-keyring`} (their secrets are copied into new entries; those of ${home} stay as they are)`,
  });
}

/** What a change must do in the keyring once config.json is written. */
export type AfterWrite = () => Promise<void>;

export class CredentialStore {
  private opening: Promise<KeyringOpening> | undefined;
  /** Entries read or written by this run, by keyring account (or why one could not be read). */
  private readonly cache = new Map<string, ProfileSecrets | CliError>();

  private readonly dir: string;

  constructor(private readonly opts: CredentialOptions) {
    this.dir = opts.dir ?? configDir(opts.env);
  }

  /** Why this directory may not use the keyring entries config.json names (a copy), or undefined. */
  foreignEntries(config: ProfileConfig): CliError | undefined {
    const home = config.keyringHome;
    if (!home || !config.keyringId) return undefined; // a config of an older svc: adopted at its next keyring write
    const here = directoryIdentity(this.dir);
    return here === undefined || here === home.id ? undefined : copiedConfig(home.path, this.dir);
  }

  /** The keyring, or why not (asked once per run: a missing keyring is not probed twice). */
  keyring(): Promise<KeyringOpening> {
    return (this.opening ??= openKeyring(this.opts.env, {
      timeoutMs: keyringTimeoutMs(this.opts.env),
      ...(this.opts.load ? { load: this.opts.load } : {}),
    }));
  }

  /**
   * Puts the secrets this run has read or written into a config read again, and why the others
   * could not be read: a profile that could not be loaded fails when used (keyring_unavailable),
   * never as if nobody had tried.
   */
  hydrateCached(config: ProfileConfig): void {
    for (const name of config.keyringNames()) {
      const cached = this.cache.get(this.cacheKey(config, name));
      if (cached && !config.isLoaded(name)) config.hydrate(name, cached);
    }
  }

  /** The cache's key of a profile: its keyring account, or its name where config.json has no keyring_id. */
  private cacheKey(config: ProfileConfig, name: string): string {
    const id = config.keyringId;
    return id ? keyringAccount(id, name) : `\u0000no-keyring-id\u0000${name}`;
  }

  /** Reads the secrets of the named keyring profiles into `config` (an unreadable one throws when used). */
  async load(config: ProfileConfig, names: readonly string[], opts: { original?: boolean } = {}): Promise<void> {
    const wanted = names.filter((n) => config.storeOf(n) === 'keyring' && !config.isLoaded(n));
    if (wanted.length === 0) return;
    const id = config.keyringId;
    for (const name of opts.original ? [] : wanted) {
      const cached = this.cache.get(this.cacheKey(config, name));
      if (cached) config.hydrate(name, cached);
    }
    const missing = wanted.filter((n) => !config.isLoaded(n));
    if (missing.length === 0) return;
    const foreign = opts.original ? undefined : this.foreignEntries(config);
    const opened = foreign ? undefined : await this.keyring();
    for (const name of missing) {
      const what = `the secrets of profile "${name}" are in the OS keyring and cannot be read`;
      const loaded = foreign ?? (await this.readEntry(opened!, id, name, what));
      this.cache.set(this.cacheKey(config, name), loaded);
      config.hydrate(name, loaded);
    }
  }

  /** One profile's secrets from the keyring, or why they cannot be had. */
  private async readEntry(opened: KeyringOpening, id: string | undefined, name: string, what: string): Promise<ProfileSecrets | CliError> {
    if ('unavailable' in opened) return keyringUnavailable(opened.unavailable, what);
    if (!id) return keyringUnavailable({ reason: 'error', detail: 'config.json has no keyring_id' }, what);
    try {
      const text = await opened.keyring.read(keyringAccount(id, name));
      const secrets = text === null ? undefined : parseSecrets(text);
      return secrets ?? keyringUnavailable({ reason: 'error', detail: text === null ? 'the entry is missing' : 'the entry is not one svc wrote' }, what);
    } catch (err) {
      return keyringUnavailable(failureOf(err), what);
    }
  }

  /** Whether saving this change touches the keyring (else settle() has nothing to do). */
  involved(config: ProfileConfig, before: KeyringSnapshot): boolean {
    if (config.undecidedNames().length > 0 && storeSetting(this.opts.env, config.storeSetting) !== 'file') return true;
    const after = config.keyringState();
    if ([...after].some(([name, text]) => before.state.get(name) !== text)) return true;
    return before.names.some((name) => config.storeOf(name) !== 'keyring');
  }

  /**
   * Makes the keyring agree with a change of `config` (before: its snapshot() before the
   * change): new profiles get their store, changed secrets are written. Throws, with nothing
   * written to config.json yet, when the keyring is needed and cannot be had. The returned
   * function removes what the change left behind, once config.json no longer points at it.
   */
  async settle(config: ProfileConfig, before: KeyringSnapshot, file: string, makeId: () => string): Promise<AfterWrite> {
    const undecided = config.undecidedNames();
    if (undecided.length > 0) {
      const setting = storeSetting(this.opts.env, config.storeSetting);
      if (setting !== 'file') {
        const unusable = await this.status();
        if (unusable) {
          if (setting === 'keyring') throw keyringUnavailable(unusable, `SVC_CREDENTIAL_STORE is keyring and the OS keyring cannot be used`);
          for (const name of undecided) this.opts.warn?.(fallbackWarning(unusable, name, file));
        } else {
          for (const name of undecided) config.moveToKeyring(name);
        }
      }
    }
    const after = config.keyringState();
    // A new keyring id (--own-keyring): every entry is written under it; the old ones are not this directory's to remove.
    const rekeyed = before.id !== undefined && config.keyringId !== before.id;
    const writes = [...after].filter(([name, text]) => rekeyed || before.state.get(name) !== text);
    const removals = rekeyed ? [] : before.names.filter((name) => config.storeOf(name) !== 'keyring');
    if (writes.length === 0 && removals.length === 0) return async () => {};
    const foreign = this.foreignEntries(config);
    if (foreign) throw foreign.with({ message: `${foreign.message}; nothing was changed` });
    const keyring = await this.available('the OS keyring cannot be used to store these secrets');
    const id = config.keyringId ?? config.ensureKeyringId(makeId);
    const here = directoryIdentity(this.dir);
    if (!config.keyringHome && here !== undefined) config.setKeyringHome({ id: here, path: this.dir });
    for (const [name] of writes) {
      const secrets = config.loadedSecrets(name)!;
      try {
        await keyring.write(keyringAccount(id, name), JSON.stringify(secrets));
      } catch (err) {
        throw keyringUnavailable(failureOf(err), `the secrets of profile "${name}" could not be written to the OS keyring; nothing was changed`);
      }
      this.cache.set(keyringAccount(id, name), secrets);
    }
    return async () => {
      for (const name of removals) {
        const account = keyringAccount(id, name);
        this.cache.delete(account);
        try {
          await keyring.remove(account);
        } catch {
          this.opts.warn?.(`warning: the keyring entry of profile "${name}" could not be removed; remove it with \`secret-tool clear service ${KEYRING_SERVICE} username ${account}\` (or your keyring manager)\n`);
        }
      }
    };
  }

  /** Why secrets cannot be written to the keyring now, or null when they can (`svc doctor` reports it). */
  async status(): Promise<Unavailable | null> {
    const opened = await this.keyring();
    return 'unavailable' in opened ? opened.unavailable : opened.keyring.writable();
  }

  /** The keyring, able to write; keyring_unavailable (naming `what`) when it is not. */
  private async available(what: string): Promise<Keyring> {
    const opened = await this.keyring();
    if ('unavailable' in opened) throw keyringUnavailable(opened.unavailable, what);
    const unwritable = await opened.keyring.writable();
    if (unwritable) throw keyringUnavailable(unwritable, what);
    return opened.keyring;
  }
}
