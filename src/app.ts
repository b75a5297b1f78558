// The dependencies a command runs with, built lazily so start-up stays fast.
import type { IOStreams } from './io/streams.js';
import type { ApiClient } from './api/client.js';
import type { ProfileStore } from './config/profiles.js';
import type { ResolvedAuth } from './config/resolve.js';
import type { DecryptionKey } from './crypto/viewing-key.js';
import type { LocalReader } from './crypto/reader.js';
import { CancelledError, UsageError } from './errors.js';

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

export class App {
  exitCode = 0;
  private storeInstance?: ProfileStore;
  private authInstance?: ResolvedAuth;

  constructor(
    readonly io: IOStreams,
    readonly env: NodeJS.ProcessEnv,
    readonly globals: GlobalOptions,
  ) {}

  async store(): Promise<ProfileStore> {
    if (!this.storeInstance) {
      const [{ ProfileStore }, { configDir }] = await Promise.all([
        import('./config/profiles.js'),
        import('./config/paths.js'),
      ]);
      this.storeInstance = new ProfileStore(configDir(this.env));
    }
    return this.storeInstance;
  }

  async auth(): Promise<ResolvedAuth> {
    if (!this.authInstance) {
      const { resolveAuth } = await import('./config/resolve.js');
      // Read-only: resolving a key must not load conf (it is the slowest module to import).
      const [{ readProfiles }, { configDir }] = await Promise.all([import('./config/profile-file.js'), import('./config/paths.js')]);
      this.authInstance = resolveAuth(this.storeInstance ?? readProfiles(configDir(this.env)), this.globals, this.env);
    }
    return this.authInstance;
  }

  timeoutMs(): number {
    if (this.globals.timeout === undefined) return 30_000;
    const n = Number(this.globals.timeout);
    if (!Number.isInteger(n) || n <= 0) throw new UsageError('--timeout must be a positive whole number of milliseconds');
    return n;
  }

  async client(): Promise<ApiClient> {
    const auth = await this.auth();
    const { ApiClient } = await import('./api/client.js');
    return new ApiClient({
      baseUrl: auth.baseUrl,
      apiKey: auth.apiKey,
      timeoutMs: this.timeoutMs(),
      userAgent: 'svc-cli/0.1',
      trace: this.globals.verbose ? (line) => this.io.err(`${line}\n`) : undefined,
    });
  }

  /** The decryption key from SVC_DECRYPTION_KEY or the profile, checked, or undefined. */
  async decryptionKey(): Promise<DecryptionKey | undefined> {
    const auth = await this.auth();
    if (!auth.decryptionKey) return undefined;
    const { parseDecryptionKey } = await import('./crypto/viewing-key.js');
    const parsed = parseDecryptionKey(auth.decryptionKey);
    const source = this.env.SVC_DECRYPTION_KEY ? 'SVC_DECRYPTION_KEY' : 'the profile\'s decryption key';
    if (!parsed.ok) throw new UsageError(`${source} ${parsed.rule}`);
    if (parsed.value.environment !== auth.environment) {
      throw new UsageError(`${source} is a ${parsed.value.environment} key but the API key is ${auth.environment}`);
    }
    return parsed.value;
  }

  private readerPromise?: Promise<LocalReader | undefined>;
  /** A local reader for ciphertexts addressed to this account, when a decryption key is set. */
  reader(): Promise<LocalReader | undefined> {
    this.readerPromise ??= (async () => {
      const key = await this.decryptionKey();
      if (!key) return undefined;
      const [{ LocalReader }, { AccountSchema }] = await Promise.all([import('./crypto/reader.js'), import('./api/schemas.js')]);
      const { data } = await (await this.client()).get('/v1/accounts/me', { schema: AccountSchema });
      return new LocalReader(key, data.account_id);
    })();
    return this.readerPromise;
  }

  get json(): boolean {
    return Boolean(this.globals.json);
  }

  /**
   * Asks before a dangerous action. On a TTY: a prompt defaulting to No. Otherwise `--yes`
   * is required. `onlyLive` limits the check to live keys (money-moving commands).
   */
  async confirm(message: string, opts: { onlyLive?: boolean } = {}): Promise<void> {
    if (opts.onlyLive) {
      const auth = await this.auth();
      if (auth.environment !== 'live') return;
    }
    if (this.globals.yes) return;
    if (!this.io.canPrompt) {
      throw new UsageError(`${message.replace(/\?$/, '')}: confirmation required`, 'pass --yes to confirm without a prompt');
    }
    const { confirm } = await import('@inquirer/prompts');
    const ok = await confirm({ message, default: false }, { input: this.io.stdin, output: this.io.stderr });
    if (!ok) throw new CancelledError('cancelled: nothing was changed');
  }
}
