// The OS credential store through @napi-rs/keyring (an optional dependency, loaded only here and
// only when a secret is read or written). Where the store is the Secret Service (Linux, FreeBSD),
// the session bus is asked first from JavaScript within the timeout (dbus-probe.ts): the module's
// calls block the thread that makes them, so the probe is what bounds a hung bus or a locked
// keyring. Entries are pinned to the Secret Service: never the kernel keyring, which forgets them.
import { createRequire } from 'node:module';
import { probeSecretService, sessionBusPath } from './dbus-probe.js';
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
  read(account: string): string | null;
  write(account: string, value: string): void;
  remove(account: string): boolean;
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
  // The probe waits on the bus while the module loads (a few ms of start-up each, side by side).
  const bus = platform === 'linux' || platform === 'freebsd';
  if (bus && !sessionBusPath(env)) return { unavailable: { reason: 'no_session_bus' } }; // nothing to load
  const probed = bus ? probeSecretService(env, deps.timeoutMs) : Promise.resolve(null);
  const loaded = loadEntry(deps.load ?? loadModule);
  const failure = await probed;
  if (failure) return { unavailable: { reason: failure } };
  const mod = await loaded;
  if ('unavailable' in mod) return mod;
  const options = { linux: { store: 'secret-service' as const } };
  const entry = (account: string) => new mod.Entry(KEYRING_SERVICE, account, options);
  const keyring: Keyring = {
    read: (account) => entry(account).getPassword(),
    write: (account, value) => entry(account).setPassword(value),
    remove: (account) => entry(account).deleteCredential(),
  };
  return { keyring };
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
  const message = err instanceof Error ? err.message : String(err);
  if (/locked/i.test(message)) return { reason: 'locked' };
  if (/DBUS_SESSION_BUS_ADDRESS|session bus/i.test(message)) return { reason: 'no_session_bus' };
  return { reason: 'error', detail: message.replace(/[^\x20-\x7e]/g, '?').slice(0, 120) };
}
