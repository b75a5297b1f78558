// The OS credential store through @napi-rs/keyring (an optional dependency, loaded only here and
// only when a secret is read or written). Where the store is the Secret Service (Linux, FreeBSD),
// the session bus is asked first from JavaScript within the timeout (dbus-probe.ts): the module's
// calls block the thread that makes them, so the probe is what bounds a hung bus or a locked
// keyring. Entries are pinned to the Secret Service: never the kernel keyring, which forgets them.
import { createRequire } from 'node:module';
import { openSecretService, sessionBusPath } from './dbus-probe.js';
import { readSecret } from './secret-read.js';
import { KEYRING_SERVICE } from './secrets.js';
import type { Unavailable } from './unavailable.js';

/** The part of @napi-rs/keyring svc uses. */
interface KeyringModule {
  Entry: new (service: string, account: string, options?: { linux?: { store?: 'secret-service' | 'keyutils' } }) => {
    getPassword(): string | null;
    setPassword(password: string): void;
    deleteCredential(): boolean;
  };
}

export interface Keyring {
  read(account: string): Promise<string | null>;
  write(account: string, value: string): Promise<void>;
  remove(account: string): Promise<boolean>;
  /** Whether entries can be written: the native module loads (reads may not need it). */
  writable(): Promise<Unavailable | null>;
}

export type KeyringOpening = { keyring: Keyring } | { unavailable: Unavailable };

export interface KeyringDeps {
  timeoutMs: number;
  /** Loads the native module (tests: one that fails as a broken install does). */
  load?: () => Promise<unknown>;
  platform?: NodeJS.Platform;
}

// require(), not import(): the module is CommonJS, and the ESM loader would cost ~10 ms more to start.
const loadModule = async (): Promise<unknown> => createRequire(import.meta.url)('@napi-rs/keyring');

/** The keyring, or why it cannot be used now. Never throws. */
export async function openKeyring(env: NodeJS.ProcessEnv, deps: KeyringDeps): Promise<KeyringOpening> {
  const platform = deps.platform ?? process.platform;
  const load = deps.load ?? loadModule;
  if (platform !== 'linux' && platform !== 'freebsd') {
    // Keychain, Credential Manager: local APIs, no bus to probe; the module does everything.
    const mod = await loadEntry(load);
    if ('unavailable' in mod) return mod;
    return { keyring: nativeKeyring(() => Promise.resolve(mod)) };
  }
  if (!sessionBusPath(env)) return { unavailable: { reason: 'no_session_bus' } }; // nothing to load
  const opened = await openSecretService(env, deps.timeoutMs);
  if ('failure' in opened) return { unavailable: { reason: opened.failure } };
  // Loaded only to write or remove an entry, or to read one the bus's answers leave unclear.
  let loading: Promise<KeyringModule | { unavailable: Unavailable }> | undefined;
  const mod = () => (loading ??= loadEntry(load));
  const native = nativeKeyring(mod);
  return {
    keyring: {
      ...native,
      async read(account) {
        const text = await readSecret(opened.bus, { service: KEYRING_SERVICE, username: account }, deps.timeoutMs);
        return text !== undefined ? text : native.read(account);
      },
    },
  };
}

/** Every operation through the native module, pinned to the Secret Service on Linux. */
function nativeKeyring(mod: () => Promise<KeyringModule | { unavailable: Unavailable }>): Keyring {
  const options = { linux: { store: 'secret-service' as const } };
  const entry = async (account: string) => {
    const m = await mod();
    if ('unavailable' in m) throw Object.assign(new Error('the keyring module did not load'), { unavailable: m.unavailable });
    return new m.Entry(KEYRING_SERVICE, account, options);
  };
  return {
    read: async (account) => (await entry(account)).getPassword(),
    write: async (account, value) => (await entry(account)).setPassword(value),
    remove: async (account) => (await entry(account)).deleteCredential(),
    writable: async () => {
      const m = await mod();
      return 'unavailable' in m ? m.unavailable : null;
    },
  };
}

/** The module's Entry class, or why it cannot be had (never throws). */
async function loadEntry(load: () => Promise<unknown>): Promise<KeyringModule | { unavailable: Unavailable }> {
  try {
    const loaded = (await load()) as Partial<KeyringModule> & { default?: Partial<KeyringModule> };
    const Entry = loaded.Entry ?? loaded.default?.Entry;
    if (typeof Entry !== 'function') throw new Error('no Entry class');
    return { Entry };
  } catch (err) {
    // ERR_DLOPEN_FAILED, MODULE_NOT_FOUND, a missing platform package: like no keyring at all.
    const code = (err as NodeJS.ErrnoException).code;
    return { unavailable: { reason: 'module_failed', ...(typeof code === 'string' && /^[A-Z_]{1,40}$/.test(code) ? { detail: code } : {}) } };
  }
}

/** A failure of the module's call, as a reason (its message may name the entry, never a secret). */
export function failureOf(err: unknown): Unavailable {
  const known = (err as { unavailable?: Unavailable } | null)?.unavailable;
  if (known) return known;
  const message = err instanceof Error ? err.message : String(err);
  if (/locked/i.test(message)) return { reason: 'locked' };
  if (/DBUS_SESSION_BUS_ADDRESS|session bus/i.test(message)) return { reason: 'no_session_bus' };
  return { reason: 'error', detail: message.replace(/[^\x20-\x7e]/g, '?').slice(0, 120) };
}
