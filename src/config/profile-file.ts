// config.json as data. Profiles are kept in a Map, so a name is only ever a key: `constructor`,
// `toString` or `__proto__` are profiles like any other, never properties inherited from
// Object.prototype. Reading needs nothing else (the hot path of every API command); writing
// goes through ProfileStore (profiles.ts): conf writes the file, under the config lock.
// A keyring profile ("secrets": "keyring") is kept here without its secrets: they are read from
// the OS keyring into it (hydrate, by credentials/store.ts) only when a command needs them, and
// serialize() never writes them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Profile, SecretsStore } from './profile-types.js';
import { compareProfileNames } from './profile-name.js';
import { checkPrivatePath } from './safe-path.js';
import { CliError, UsageError } from '../errors.js';
import { withoutSecrets, type ProfileSecrets } from './credentials/secrets.js';

export interface ProfileLookup {
  readonly current: string | null;
  /** The whole profile; for a keyring profile, once its secrets were loaded (else it throws). */
  get(name: string): Profile | undefined;
  /** The profile without loading anything: a keyring profile's secrets are absent. */
  peek(name: string): StoredProfile | undefined;
  /** Profile names, sorted. */
  names(): string[];
}

/** A profile as config.json has it: a keyring profile's secrets are not there. */
export type StoredProfile = Omit<Profile, 'apiKey'> & { apiKey?: string };

export const CONFIG_FILE = 'config.json';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A usable file profile: an object with a string key and base URL (a hand-made entry may be anything). */
function isFileProfile(v: unknown): v is Profile {
  return isRecord(v) && v.secrets !== 'keyring' && typeof v.apiKey === 'string' && typeof v.baseUrl === 'string';
}

/** A usable keyring profile: a base URL, its secrets in the OS keyring. */
function isKeyringProfile(v: unknown): v is StoredProfile {
  return isRecord(v) && v.secrets === 'keyring' && typeof v.baseUrl === 'string';
}

const isUsable = (v: unknown): boolean => isFileProfile(v) || isKeyringProfile(v);

/**
 * The contents of config.json. Entries that are not usable profiles are invisible to lookups but
 * kept as they are when the file is written, like any top-level field this version does not know.
 */
export class ProfileConfig implements ProfileLookup {
  /** Keyring profiles' secrets as loaded (or why they could not be). */
  private readonly loaded = new Map<string, ProfileSecrets | CliError>();
  /** Profiles added by set() whose store is not decided yet (credentials/store.ts decides). */
  private readonly undecided = new Set<string>();

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
    return this.currentName !== null && isUsable(this.entries.get(this.currentName)) ? this.currentName : null;
  }

  get(name: string): Profile | undefined {
    const entry = this.entries.get(name);
    if (isFileProfile(entry)) return entry;
    if (!isKeyringProfile(entry)) return undefined;
    const secrets = this.loaded.get(name);
    if (secrets instanceof CliError) throw secrets;
    if (!secrets) throw new Error(`the secrets of keyring profile "${name}" were not loaded before use`);
    return { ...entry, ...secrets };
  }

  peek(name: string): StoredProfile | undefined {
    const entry = this.entries.get(name);
    return isUsable(entry) ? (entry as StoredProfile) : undefined;
  }

  /** Where a usable profile's secrets live (a profile without the mark: the file, as before keyrings). */
  storeOf(name: string): SecretsStore | undefined {
    const entry = this.entries.get(name);
    return isKeyringProfile(entry) ? 'keyring' : isFileProfile(entry) ? 'file' : undefined;
  }

  keyringNames(): string[] {
    return [...this.entries.keys()].filter((n) => isKeyringProfile(this.entries.get(n)));
  }

  /** Whether a keyring profile's secrets were loaded (or failed to). */
  isLoaded(name: string): boolean {
    return this.loaded.has(name);
  }

  /** Puts a keyring profile's secrets (or why they cannot be read) in place. */
  hydrate(name: string, secrets: ProfileSecrets | CliError): void {
    this.loaded.set(name, secrets);
  }

  /** Each loaded keyring profile's secrets as text, to tell what a change must write. */
  keyringState(): Map<string, string> {
    const out = new Map<string, string>();
    for (const name of this.keyringNames()) {
      const s = this.loaded.get(name);
      if (s && !(s instanceof CliError)) out.set(name, JSON.stringify(s));
    }
    return out;
  }

  loadedSecrets(name: string): ProfileSecrets | undefined {
    const s = this.loaded.get(name);
    return s instanceof CliError ? undefined : s;
  }

  undecidedNames(): string[] {
    return [...this.undecided].filter((n) => isFileProfile(this.entries.get(n)));
  }

  /** A file profile's secrets go to the keyring: the entry keeps the rest and the mark. */
  moveToKeyring(name: string): void {
    const entry = this.entries.get(name);
    if (!isFileProfile(entry)) return;
    const secrets: ProfileSecrets = { apiKey: entry.apiKey };
    if (entry.decryptionKey) secrets.decryptionKey = entry.decryptionKey;
    if (entry.sandboxAdminToken) secrets.sandboxAdminToken = entry.sandboxAdminToken;
    this.entries.set(name, { ...withoutSecrets(entry), secrets: 'keyring' });
    this.loaded.set(name, secrets);
    this.undecided.delete(name);
  }

  /** The random id that keeps this config directory's keyring entries apart from another's. */
  get keyringId(): string | undefined {
    const id = this.others.get('keyring_id');
    return typeof id === 'string' && /^[0-9a-f]{16,64}$/.test(id) ? id : undefined;
  }

  ensureKeyringId(make: () => string): string {
    const id = this.keyringId ?? make();
    this.others.set('keyring_id', id);
    return id;
  }

  /** A new keyring id (`profile migrate --own-keyring`: a copied directory's entries of its own). */
  replaceKeyringId(id: string): void {
    this.others.set('keyring_id', id);
  }

  /**
   * The directory the keyring entries belong to: its device and inode (`dev:ino`, what a copy
   * cannot have) and its path when recorded (for messages). Absent in a config of an older svc.
   */
  get keyringHome(): { id: string; path: string } | undefined {
    const home = this.others.get('keyring_home');
    if (!isRecord(home) || typeof home.id !== 'string' || typeof home.path !== 'string') return undefined;
    return { id: home.id, path: home.path };
  }

  setKeyringHome(home: { id: string; path: string }): void {
    this.others.set('keyring_home', { ...home });
  }

  /** config.json's "credential_store" (credentials/setting.ts checks it). */
  get storeSetting(): unknown {
    return this.others.get('credential_store');
  }

  /** Whether anything is stored under `name` (a usable profile or not). */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  names(): string[] {
    return [...this.entries.keys()].filter((n) => isUsable(this.entries.get(n))).sort(compareProfileNames);
  }

  list(): Array<{ name: string; profile: Profile; current: boolean }> {
    const current = this.current;
    return this.names().map((name) => ({ name, profile: this.get(name)!, current: name === current }));
  }

  /**
   * Adds or replaces a profile; it becomes current when asked, or when no usable profile is.
   * Its secrets stay where the profile's are (`secrets` says otherwise: a migration); a new
   * profile's store is decided when the change is saved (credentials/store.ts).
   */
  set(name: string, profile: Profile, opts: { makeCurrent?: boolean } = {}): void {
    const existing = this.storeOf(name);
    const store = profile.secrets ?? existing;
    const { secrets: _mark, ...rest } = profile;
    if (store === 'keyring') {
      this.entries.set(name, { ...withoutSecrets(rest), secrets: 'keyring' });
      const secrets: ProfileSecrets = { apiKey: profile.apiKey };
      if (profile.decryptionKey) secrets.decryptionKey = profile.decryptionKey;
      if (profile.sandboxAdminToken) secrets.sandboxAdminToken = profile.sandboxAdminToken;
      this.loaded.set(name, secrets);
      this.undecided.delete(name);
    } else {
      this.entries.set(name, rest);
      this.loaded.delete(name);
      if (store === undefined) this.undecided.add(name);
      else this.undecided.delete(name);
    }
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
    this.loaded.delete(name);
    this.undecided.delete(name);
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
