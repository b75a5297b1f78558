// The dependencies a command runs with, built lazily so start-up stays fast.
import type { IOStreams } from './io/streams.js';
import type { ApiClient } from './api/client.js';
import type { ProfileStore } from './config/profiles.js';
import type { ResolvedAuth } from './config/resolve.js';
import type { DecryptionKey } from './crypto/viewing-key.js';
import type { LocalReader } from './crypto/reader.js';
import { CancelledError, ConfirmationRequiredError, UsageError } from './errors.js';
import { sanitize } from './io/sanitize.js';
import { NetworkBudget } from './api/budget.js';
import { DURATION_RULE, parseDuration } from './domain/duration.js';
import { DEFAULT_TIMEOUT_MS } from './api/limits.js';
// Small, and needed by nearly every command: loaded with the program (each file loaded on its
// own costs a few tenths of a millisecond; the heavy modules below stay behind import()).
import { accountCacheFor } from './config/account-cache.js';
import { configDir } from './config/paths.js';
import { readProfiles } from './config/profile-file.js';
import { resolveAuth } from './config/resolve.js';

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

/** Time as the command sees it; tests inject one that the sandbox clock drives. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Ctrl-C, for the commands that keep running until it (sandbox start, webhook listen, review --watch). */
export interface Interrupt {
  readonly signal: AbortSignal;
  /** Claims Ctrl-C: the command stops by itself when the signal aborts (instead of exit 130). */
  handle(): void;
}

export interface AppOptions {
  clock?: Clock | undefined;
  interrupt?: Interrupt | undefined;
}

export class App {
  exitCode = 0;
  private storeInstance?: ProfileStore;
  private authInstance?: ResolvedAuth;

  readonly clock: Clock;
  private readonly interrupt: Interrupt | undefined;

  constructor(
    readonly io: IOStreams,
    readonly env: NodeJS.ProcessEnv,
    readonly globals: GlobalOptions,
    opts: AppOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.interrupt = opts.interrupt;
  }

  /** Resolves with the signal name when the user interrupts (Ctrl-C, SIGTERM). Claims the interrupt. */
  waitForInterrupt(): Promise<string> {
    const it = this.interrupt;
    if (!it) return new Promise(() => {}); // nothing can interrupt: run until the process ends
    it.handle();
    if (it.signal.aborted) return Promise.resolve(String(it.signal.reason ?? 'SIGINT'));
    return new Promise((resolve) => it.signal.addEventListener('abort', () => resolve(String(it.signal.reason ?? 'SIGINT')), { once: true }));
  }

  async store(): Promise<ProfileStore> {
    if (!this.storeInstance) {
      const { ProfileStore } = await import('./config/profiles.js');
      this.storeInstance = new ProfileStore(configDir(this.env));
    }
    return this.storeInstance;
  }

  async auth(): Promise<ResolvedAuth> {
    if (!this.authInstance) {
      // Read-only: resolving a key must not load conf (it is the slowest module to import).
      this.authInstance = resolveAuth(this.storeInstance ?? readProfiles(configDir(this.env)), this.globals, this.env);
    }
    return this.authInstance;
  }

  /** --timeout: a duration (`30s`, `2m`, `500ms`); default 30s. A bare number is still read as milliseconds (older scripts). */
  timeoutMs(): number {
    const text = this.globals.timeout;
    if (text === undefined) return DEFAULT_TIMEOUT_MS;
    const ms = /^\d+$/.test(text.trim()) ? Number(text.trim()) : parseDuration(text);
    if (ms === undefined || !Number.isSafeInteger(ms) || ms <= 0) {
      throw new UsageError(`--timeout "${sanitize(text)}" ${ms === undefined ? DURATION_RULE : 'must be longer than 0s'}`);
    }
    return ms;
  }

  private budgetInstance?: NetworkBudget;
  /** The command's network time (--timeout), shared by every client it makes. */
  budget(): NetworkBudget {
    return (this.budgetInstance ??= new NetworkBudget(this.timeoutMs()));
  }

  /** A full budget again: for commands that keep running (review --watch, webhook listen), per round. */
  renewBudget(): void {
    this.budgetInstance = new NetworkBudget(this.timeoutMs());
  }

  /** serviceNow() - clock.now(), from the last answer's Date header (whole seconds). */
  private serviceOffsetMs = 0;
  private serviceTimeKnown = false;

  /**
   * Now on the service's clock, which relative times are measured against (the sandbox's clock
   * can be moved forward); our own clock until an answer has told us.
   */
  serviceNow(): number {
    return this.clock.now() + this.serviceOffsetMs;
  }

  /** Told by every client of this run (API and sandbox control) from answers' Date headers. */
  learnServiceTime(serverTime: Date): void {
    this.serviceOffsetMs = serverTime.getTime() - this.clock.now();
    this.serviceTimeKnown = true;
  }

  /** Whether an answer has told the service's time yet (serviceNow() is our clock until then). */
  get knowsServiceTime(): boolean {
    return this.serviceTimeKnown;
  }

  async client(): Promise<ApiClient> {
    const auth = await this.auth();
    const { ApiClient } = await import('./api/client.js');
    return new ApiClient({
      baseUrl: auth.baseUrl,
      apiKey: auth.apiKey,
      // The budget in force when each request starts (renewBudget() swaps it).
      budget: () => this.budget(),
      userAgent: 'svc-cli/0.1',
      env: this.env,
      sleep: (ms) => this.clock.sleep(ms),
      onServerTime: (t) => this.learnServiceTime(t),
      // Header values come from the server: sanitised like every other server string.
      trace: this.globals.verbose ? (line) => this.io.err(`${sanitize(line)}\n`) : undefined,
    });
  }

  /** The decryption key from SVC_DECRYPTION_KEY or the profile, checked, or undefined. */
  async decryptionKey(): Promise<DecryptionKey | undefined> {
    const auth = await this.auth();
    if (!auth.decryptionKey) return undefined;
    const { parseDecryptionKey } = await import('./crypto/viewing-key.js');
    const parsed = parseDecryptionKey(auth.decryptionKey);
    const source = auth.decryptionKeySource;
    if (!parsed.ok) throw new UsageError(`${source} ${parsed.rule}`, undefined, 'invalid_decryption_key');
    if (parsed.value.environment !== auth.environment) {
      throw new UsageError(`${source} is a ${parsed.value.environment} key but the API key is ${auth.environment}`, undefined, 'invalid_decryption_key');
    }
    return parsed.value;
  }

  private readerPromise?: Promise<LocalReader | undefined>;
  /** A local reader for ciphertexts addressed to this account, when a decryption key is set. */
  reader(): Promise<LocalReader | undefined> {
    this.readerPromise ??= (async () => {
      if (!(await this.auth()).decryptionKey) return undefined;
      // The modules load side by side (they are most of the cost on a short command).
      const [key, { LocalReader }, account] = await Promise.all([this.decryptionKey(), import('./crypto/reader.js'), this.account()]);
      return key ? new LocalReader(key, account.account_id) : undefined;
    })();
    return this.readerPromise;
  }

  /**
   * The account of the API key: from the profile when it has learnt it, else GET /v1/accounts/me
   * (then remembered in the profile the key came from; a config that cannot be written is fine).
   */
  async account(): Promise<{ account_id: string; handle: string }> {
    const auth = await this.auth();
    if (auth.account) return auth.account;
    const { AccountSchema } = await import('./api/schemas.js');
    const { data } = await (await this.client()).get('/v1/accounts/me', { schema: AccountSchema });
    const account = { account_id: data.account_id, handle: data.handle };
    const name = auth.profileName;
    if (name) {
      try {
        const store = await this.store();
        const profile = store.get(name);
        // Only when the key and URL used are that profile's own (not SVC_API_KEY or --base-url).
        if (profile && profile.apiKey === auth.apiKey && profile.baseUrl === auth.baseUrl) {
          store.set(name, { ...profile, account: accountCacheFor(auth.baseUrl, auth.apiKey, account) });
        }
      } catch {
        /* a cache: a read-only or unsafe config only costs the request next time */
      }
    }
    auth.account = account;
    return account;
  }

  get json(): boolean {
    return Boolean(this.globals.json);
  }

  /**
   * Before a money-moving or policy-changing request: asks only with a live key. On a terminal a
   * prompt defaulting to No; without one (or with --no-input) --yes is required. Nothing is sent
   * before the answer. A question that restates an amount passes `withoutAmount`: the wording of
   * the confirmation_required error, which may end up in a log (DESIGN.md: no amount in errors).
   */
  async confirmLive(message: string, withoutAmount?: string): Promise<void> {
    const auth = await this.auth();
    if (auth.environment !== 'live') return;
    await this.ask(message, 'Cancelled; nothing was sent.', withoutAmount);
  }

  /** Before a destructive action (whatever the key): the same prompt / --yes rule. */
  async confirmDestructive(message: string, cancelled = 'Cancelled; nothing was sent.'): Promise<void> {
    await this.ask(message, cancelled);
  }

  private async ask(message: string, cancelled: string, withoutAmount?: string): Promise<void> {
    if (this.globals.yes) return;
    if (!this.io.canPrompt) throw new ConfirmationRequiredError((withoutAmount ?? message).replace(/\?$/, ''));
    const { confirm } = await import('@inquirer/prompts');
    const ok = await confirm({ message, default: false }, { input: this.io.stdin, output: this.io.stderr });
    if (!ok) throw new CancelledError(cancelled);
  }
}
