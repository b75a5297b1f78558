// What a command runs with: small capabilities, each built lazily on first use, so start-up
// loads nothing a command does not touch (gh's cmdutil.Factory: a struct of lazy functions).
// A command's run function names the few it uses (`Needs<'io' | 'client' | ...>`), so a test
// can hand it fakes; main() builds the real ones once per run.
import type { ApiClient } from '../api/client.js';
import type { ProfileHints } from '../api/hints.js';
import { listRunning } from '../config/sandbox-running.js';
import { ServiceClock } from '../api/service-clock.js';
import { checkKeyBaseUrl, checkProfileKeyOrigin } from '../api/url.js';
import type { Clock } from '../clock.js';
import { configDir } from '../config/paths.js';
import type { CredentialStore } from '../config/credentials/store.js';
import { readConfig } from '../config/profile-file.js';
import type { ProfileStore } from '../config/profiles.js';
import { profileNeedingSecrets, resolveSettings, type AuthSettings, type ResolvedAuth } from '../config/resolve.js';
import type { LocalReader } from '../crypto/reader.js';
import type { DecryptionKey } from '../crypto/viewing-key.js';
import type { Prompter } from '../io/prompter.js';
import type { IOStreams } from '../io/streams.js';
import { lookupAccount, type AccountRef } from './account.js';
import { makeClient, type ClientTarget } from './clients.js';
import { confirmer, type Confirm } from './confirm.js';
import { decryptionKeyOf } from './decryption.js';
import { watchInterrupt, type Interrupt, type InterruptWatch } from './interrupt.js';
import { networkTime, type NetworkTime } from './network-time.js';

/** Options every command inherits from the root program. */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  json?: boolean;
  yes?: boolean;
  input?: boolean; // false with --no-input
  color?: boolean; // false with --no-color
  verbose?: boolean;
  timeout?: string;
}

export interface Factory {
  readonly io: IOStreams;
  readonly env: NodeJS.ProcessEnv;
  readonly globals: GlobalOptions;
  /** --json: exactly one JSON document on stdout (read from globals: `--jsonl` turns it on too). */
  readonly json: boolean;
  /** Our clock (waits, timings). */
  readonly clock: Clock;
  /** The service's clock, as its answers tell it (relative times, time left). */
  readonly serviceClock: ServiceClock;
  readonly prompter: Prompter;
  readonly interrupt: InterruptWatch;
  /** Live-key and destructive confirmations. */
  readonly confirm: Confirm;
  /** --timeout and its budget. */
  readonly network: NetworkTime;
  /** The profiles, writable (loads conf: only commands that write ask for it). */
  profiles(): Promise<ProfileStore>;
  /** Where secrets live: the OS keyring or config.json (shared by profiles() and settings()). */
  credentials(): Promise<CredentialStore>;
  /** What flags, profiles and environment say (flags > named profile > env > current profile), the base URL unchecked. */
  settings(): Promise<AuthSettings>;
  /**
   * The key, base URL and decryption key in use: the settings, once the base URL passed the key's
   * rule (a live key: https only, no default). Asked before any question or request.
   */
  auth(): Promise<ResolvedAuth>;
  /** Certificate authorities to trust instead of Node's: set only by main()'s caller (tests), never by flag or env. */
  readonly trustedCa: string | undefined;
  /** A client for the resolved key and base URL. */
  client(): Promise<ApiClient>;
  /** A client for another key or URL, with this run's budget, clocks and trace. */
  clientFor(target: ClientTarget): Promise<ApiClient>;
  /** The key's account (id and handle). */
  account(): Promise<AccountRef>;
  /** The decryption key, checked, or undefined when none is set. */
  decryptionKey(): Promise<DecryptionKey | undefined>;
  /** A local reader of ciphertexts addressed to this account, when a decryption key is set. */
  reader(): Promise<LocalReader | undefined>;
}

/** The capabilities a command uses. */
export type Needs<K extends keyof Factory> = Pick<Factory, K>;

export interface FactoryOptions {
  io: IOStreams;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  clock: Clock;
  prompter: Prompter;
  interrupt?: Interrupt | undefined;
  trustedCa?: string | undefined;
}

const once = <T>(make: () => T): (() => T) => {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};

/** Whether the key and base URL in use are the profile's own (not SVC_API_KEY, SVC_BASE_URL or --base-url). */
function ownProfile(a: ResolvedAuth): a is ResolvedAuth & { profileName: string } {
  return a.profileName !== null && a.apiKeySource === 'profile' && a.baseUrlSource === `profile "${a.profileName}"`;
}

/** What the hints of the profile in use may say (api/hints.ts): whether it follows the sandbox, where the sandbox runs. */
function profileHints(a: ResolvedAuth & { profileName: string }, env: NodeJS.ProcessEnv): ProfileHints {
  return {
    name: a.profileName,
    ...(a.follower ? { follower: a.follower } : {}),
    runningSandbox: () => listRunning(env).find((r) => r.state !== undefined)?.url,
  };
}

export function createFactory(opts: FactoryOptions): Factory {
  const { io, env, globals, clock, prompter } = opts;
  const serviceClock = new ServiceClock(clock);
  const network = networkTime(globals.timeout);
  // Loaded only when a secret is read from or written to a store (the keyring module behind it later still).
  const credentials = once(async () => {
    const [{ CredentialStore }, { sanitize }] = await Promise.all([import('../config/credentials/store.js'), import('../io/sanitize.js')]);
    return new CredentialStore({ env, warn: (text) => io.err(`${sanitize(text.trimEnd())}\n`) });
  });
  // The keyring profiles' secrets are read once here, so get() and list() return them whole to
  // every command that writes profiles (one that cannot be read throws keyring_unavailable when used).
  const profiles = once(async () => {
    const { ProfileStore } = await import('../config/profiles.js');
    const store = new ProfileStore(configDir(env), { clock, credentials: await credentials() });
    await store.load();
    return store;
  });
  // Read-only: resolving a key must not load conf (the slowest module to import). A keyring
  // profile's secrets are read only when this run uses that profile's key.
  const settings = once(async () => {
    const config = readConfig(configDir(env));
    const name = profileNeedingSecrets(config, globals, env);
    if (name !== null && config.storeOf(name) === 'keyring') await (await credentials()).load(config, [name]);
    return resolveSettings(config, globals, env);
  });
  const auth = once(async (): Promise<ResolvedAuth> => {
    const s = await settings();
    checkKeyBaseUrl(s.baseUrl, s.environment, s.baseUrlSource);
    checkProfileKeyOrigin(s);
    return { ...s, baseUrl: s.baseUrl! };
  });
  const { trustedCa } = opts;
  const clientFor = (target: ClientTarget) => makeClient(target, { io, env, clock, serviceClock, budget: () => network.budget(), verbose: Boolean(globals.verbose), trustedCa });
  const client = once(async () => {
    const a = await auth();
    return clientFor({ baseUrl: a.baseUrl, apiKey: a.apiKey, ...(ownProfile(a) ? { profileHints: profileHints(a, env) } : {}) });
  });
  const account = once(async () => lookupAccount(await auth(), client, profiles, env));
  // The decryption key does not depend on the base URL (the doctor checks it even when that is refused).
  const decryptionKey = once(async () => decryptionKeyOf(await settings()));
  const reader = once(async (): Promise<LocalReader | undefined> => {
    if (!(await auth()).decryptionKey) return undefined;
    // The modules load side by side (they are most of the cost on a short command).
    const [key, { LocalReader }, acct] = await Promise.all([decryptionKey(), import('../crypto/local.js'), account()]);
    return key ? new LocalReader(key, acct.account_id) : undefined;
  });
  return {
    io,
    env,
    globals,
    get json() {
      return Boolean(globals.json);
    },
    clock,
    serviceClock,
    prompter,
    interrupt: watchInterrupt(opts.interrupt),
    confirm: confirmer({ io, yes: Boolean(globals.yes), prompter, environment: async () => (await auth()).environment }),
    network,
    profiles,
    credentials,
    settings,
    auth,
    trustedCa,
    client,
    clientFor,
    account,
    decryptionKey,
    reader,
  };
}
