// The sandbox's programmatic interface, used by `svc sandbox start` and by the tests.

export interface SandboxOptions {
  /** 0 picks a free port. Default 46630. */
  port?: number;
  /** Loopback only; default 127.0.0.1. */
  host?: string;
  /** Time from submission to settlement, on the sandbox clock. Default 1500 ms. */
  blockTimeMs?: number;
  /** The database file (SQLite, with its key in `<statePath>.key`); ignored with ephemeral. */
  statePath?: string;
  /**
   * Where an earlier sandbox kept its JSON state: imported once into statePath when that does
   * not exist yet (default: statePath itself, when it is such a JSON file).
   */
  legacyStatePath?: string;
  /** Keep state in memory only. */
  ephemeral?: boolean;
  /** Approval window of held agent transactions. Default 15 minutes. */
  approvalWindowMs?: number;
  /** Log one line per request (never bodies), and the sandbox's own errors, to this function. */
  log?: (line: string) => void;
  /** false: `log` gets errors only, and no request line is made (`--quiet`: under load, one less string per request). Default true. */
  logRequests?: boolean;
}

export interface SeededAccount {
  handle: string;
  type: 'personal' | 'business' | 'agent';
  kyc_status: string;
  public_key: string;
  confidential_ready: boolean;
  /** The API key, shown once when the world is first seeded (absent after a restart). */
  apiKey?: string;
  /** The decryption key, shown once when the account is created. */
  decryptionKey?: string;
}

export interface SandboxHandle {
  url: string;
  port: number;
  /** Bearer token for the /_sandbox control API. New at every start. */
  adminToken: string;
  /** This start's nonce (with the pid, in /_sandbox/health): what `sandbox stop` checks before it signals. */
  instance: string;
  /** Accounts created by seeding in this start (empty when state was restored). */
  seeded: SeededAccount[];
  /** Whether state was restored from the state file. */
  restored: boolean;
  /** Advance the sandbox clock and run everything that became due. */
  advance(ms: number): Promise<void>;
  now(): Date;
  /**
   * Resolves when no webhook delivery attempt is in flight, queued or due on the sandbox clock
   * (retries scheduled for later do not count). Tests await it after advance() instead of sleeping.
   */
  webhooksIdle(): Promise<void>;
  /** The whole state as one JSON document: no sealed value, ciphertext, key hash or secret. */
  export(): Record<string, unknown>;
  /**
   * Stops the server and closes the database. Every acknowledged change was committed before its
   * answer; what the close itself writes (key-use statistics, the clock) may fail: unsaved() says.
   */
  close(): Promise<void>;
  /** After close(): what could not be saved (the database locked by another program at the last flush); empty when everything was. */
  unsaved(): readonly string[];
}
