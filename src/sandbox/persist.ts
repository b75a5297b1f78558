// The state file: a JSON snapshot written atomically (temp file in the same directory, fsync,
// rename; mode 0600), throttled so bursts of changes cost one write, flushed on close, and read
// back on start. Amounts appear in it only sealed (see ledger.ts); the sealing key lives in a
// separate file `<state>.key` (0600).
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import type { SandboxClock } from './clock.js';
import { SandboxStartError } from './errors.js';
import { SealError, type Sealer } from './ledger.js';
import type { State, StateRecords } from './state.js';
import { WebhookSnapshotSchema, type WebhookSnapshot } from './webhooks/snapshot.js';

export const STATE_FORMAT = 'svc-sandbox-state';
export const STATE_VERSION = 1;
const FILE_MODE = 0o600;

// ---- atomic writes ------------------------------------------------------------------------------

function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Writes a file so a reader sees the old or the new content, never a mix; mode 0600. */
export async function writeFileAtomic(path: string, data: string | Buffer): Promise<void> {
  const tmp = tempPathFor(path);
  const fh = await open(tmp, 'wx', FILE_MODE);
  try {
    await fh.writeFile(data);
    await fh.chmod(FILE_MODE); // in case a umask or ACL widened it
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await fh.close();
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await syncDir(dirname(path));
}

/** The same, synchronously (key creation at start-up). */
export function writeFileAtomicSync(path: string, data: string | Buffer): void {
  const tmp = tempPathFor(path);
  const fd = openSync(tmp, 'wx', FILE_MODE);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw err;
  }
}

/** fsync a directory so the rename itself is durable (best effort: not every platform allows it). */
async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    /* not supported here */
  }
}

export function ensureParentDir(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
}

// ---- the sandbox key ----------------------------------------------------------------------------

export function keyPathFor(statePath: string): string {
  return `${statePath}.key`;
}

/**
 * Reads `<state>.key`, or creates it (32 random bytes, hex, 0600) when there is no state yet.
 * A state file without its key cannot be opened: that is an error, never a silent re-key.
 */
export function loadOrCreateKey(statePath: string): Buffer {
  const keyPath = keyPathFor(statePath);
  if (existsSync(keyPath)) {
    const text = readFileSync(keyPath, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/i.test(text)) {
      throw new SandboxStartError('key_missing', `sandbox key file ${keyPath} is not 64 hex digits`, 'restore it from a backup, or move the state file and its key away to start fresh');
    }
    return Buffer.from(text, 'hex');
  }
  if (existsSync(statePath)) {
    throw new SandboxStartError(
      'key_missing',
      `state file ${statePath} exists but its key file ${keyPath} is missing, so its sealed balances cannot be read`,
      'restore the key file, or move the state file away to start a fresh sandbox (or use --ephemeral)',
    );
  }
  ensureParentDir(statePath);
  const key = randomBytes(32);
  writeFileAtomicSync(keyPath, `${key.toString('hex')}\n`);
  return key;
}

// ---- snapshots ----------------------------------------------------------------------------------

const ms = z.number().int();
const AccountSchema = z.object({
  account_id: z.string(),
  handle: z.string(),
  type: z.enum(['personal', 'business', 'agent']),
  public_key: z.string(),
  kyc_status: z.enum(['unverified', 'pending', 'verified', 'enhanced']),
  confidential_ready: z.boolean(),
  created_at: ms,
  viewing_public_key: z.string().optional(),
  parent_account_id: z.string().optional(),
  /** Agents only; a file from before suspension existed has none: the agent is active. */
  status: z.enum(['active', 'suspended']).optional(),
});
const KeySchema = z.object({
  key_id: z.string(),
  name: z.string(),
  account_id: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  hint: z.string(),
  created_at: ms,
  last_used_at: ms.nullable(),
  request_count: z.number().int().nonnegative(),
  revoked_at: ms.nullable(),
});
const TransferSchema = z.object({
  transfer_id: z.string(),
  from_account_id: z.string(),
  from: z.string(),
  to: z.string(),
  to_account_id: z.string().nullable(),
  to_address: z.string(),
  asset: z.string(),
  confidential: z.boolean(),
  status: z.enum(['pending', 'confirmed', 'failed']),
  tx_hash: z.string(),
  created_at: ms,
  settles_at: ms,
  confirmed_at: ms.nullable(),
  failed_at: ms.nullable(),
  amount_sealed: z.string(),
  memo_sealed: z.string().nullable(),
  reader_ciphertexts: z.record(z.string(), z.object({ amount_ciphertext: z.string(), memo_ciphertext: z.string().optional() })).optional(),
});
const policyLimit = z.union([z.number().nonnegative(), z.string()]).nullable().optional();
const SpendPolicySchema = z.object({
  policy_id: z.string(),
  agent_account_id: z.string(),
  fields: z.object({
    daily_limit_usdc: policyLimit,
    per_transaction_limit_usdc: policyLimit,
    hitl_threshold_usdc: policyLimit,
    allowed_recipients: z.array(z.string()).nullable().optional(),
    assets: z.array(z.string()).nullable().optional(),
    active_hours: z.string().nullable().optional(),
  }),
  created_at: ms,
  updated_at: ms,
});
/** A held agent transaction: its amount only sealed (and encrypted to the owner), never plaintext. */
const HeldSchema = z.object({
  transaction_id: z.string(),
  agent_account_id: z.string(),
  owner_account_id: z.string(),
  agent: z.string(),
  to: z.string(),
  asset: z.string(),
  confidential: z.boolean(),
  requested_at: ms,
  expires_at: ms,
  status: z.enum(['pending_approval', 'approved', 'rejected']),
  decided_at: ms.nullable(),
  transfer_id: z.string().nullable(),
  amount_sealed: z.string(),
  memo_sealed: z.string().nullable(),
  amount_ciphertext: z.string().optional(),
  memo_ciphertext: z.string().optional(),
});
const IdempotencySchema = z.object({
  scope: z.string(),
  key: z.string(),
  request_hash: z.string(),
  status: z.number().int(),
  body: z.string(),
  created_at: ms,
});
const SnapshotSchema = z.object({
  format: z.literal(STATE_FORMAT),
  version: z.literal(STATE_VERSION),
  chain_id: z.number().int(),
  saved_at: z.string(),
  clock: z.object({ offset_ms: ms.nonnegative(), last_now_ms: ms }),
  accounts: z.array(AccountSchema),
  keys: z.array(KeySchema),
  balances: z.array(z.object({ account_id: z.string(), asset: z.string(), sealed: z.string() })),
  balance_ciphertexts: z
    .array(z.object({ account_id: z.string(), asset: z.string(), version: z.number().int().positive(), ciphertext: z.string() }))
    .default([]),
  transfers: z.array(TransferSchema),
  idempotency: z.array(IdempotencySchema),
  policies: z.array(SpendPolicySchema).default([]),
  held: z.array(HeldSchema).default([]),
  /** Webhook subscriptions (secrets sealed), stored events, queued deliveries, attempt log. */
  webhooks: WebhookSnapshotSchema.optional(),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;

/** The whole state as one JSON text. Balances are sealed here; transfers already are. */
export function serializeState(state: State, clock: SandboxClock, sealer: Sealer, chainId: number, webhooks?: WebhookSnapshot): string {
  const records = state.records();
  const snapshot: Snapshot = {
    format: STATE_FORMAT,
    version: STATE_VERSION,
    chain_id: chainId,
    saved_at: new Date(clock.now()).toISOString(),
    clock: { offset_ms: clock.offsetMs, last_now_ms: clock.lastNowMs },
    accounts: records.accounts,
    keys: records.keys,
    balances: state.ledger.sealAll(sealer),
    balance_ciphertexts: state.balanceViews.records(),
    transfers: records.transfers,
    idempotency: records.idempotency,
    policies: records.policies ?? [],
    held: records.held ?? [],
    ...(webhooks ? { webhooks } : {}),
  };
  return JSON.stringify(snapshot);
}

/** Reads and checks a state file; undefined when there is none. */
export function readSnapshot(path: string): Snapshot | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SandboxStartError('state_unreadable', `cannot read state file ${path}: ${(err as Error).message}`);
  }
  const hint = 'move the file away to start a fresh sandbox, or use --ephemeral';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SandboxStartError('state_unreadable', `state file ${path} is not valid JSON`, hint);
  }
  const parsed = SnapshotSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'document';
    throw new SandboxStartError('state_unreadable', `state file ${path} is not a sandbox state (version ${STATE_VERSION}): ${where}: ${issue?.message ?? 'invalid'}`, hint);
  }
  return parsed.data;
}

/** Loads a snapshot into an empty state and clock; checks every sealed value opens. */
export function restoreState(snapshot: Snapshot, state: State, clock: SandboxClock, sealer: Sealer, path: string): void {
  clock.restore(snapshot.clock.offset_ms, snapshot.clock.last_now_ms);
  const records: StateRecords = {
    accounts: snapshot.accounts.map((a) => (a.type === 'agent' && !a.status ? { ...a, status: 'active' as const } : a)),
    keys: snapshot.keys,
    transfers: snapshot.transfers,
    idempotency: snapshot.idempotency,
    policies: snapshot.policies,
    held: snapshot.held,
  };
  try {
    state.ledger.restore(snapshot.balances, sealer);
  } catch (err) {
    if (err instanceof SealError) {
      throw new SandboxStartError('state_unreadable', `state file ${path}: a sealed balance does not open with ${keyPathFor(path)} (${err.message})`, 'the key file must be the one created with this state file');
    }
    throw err;
  }
  state.load(records);
  state.balanceViews.load(snapshot.balance_ciphertexts);
}

// ---- throttled writer ---------------------------------------------------------------------------

export interface PersisterOptions {
  /** Minimum time between a change and its write, and between writes. Default 200 ms. */
  minIntervalMs?: number;
  onError?: (err: unknown) => void;
}

/**
 * Writes the snapshot at most once per interval: the first change arms a timer, later changes
 * ride along. The interval stretches to 10x the last write's duration so a large state never
 * spends more than about a tenth of the time serializing. flush() writes anything pending.
 */
export class Persister {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private lastDurationMs = 0;
  private readonly minIntervalMs: number;
  writes = 0;

  constructor(
    readonly path: string,
    private readonly serialize: () => string,
    private readonly opts: PersisterOptions = {},
  ) {
    this.minIntervalMs = opts.minIntervalMs ?? 200;
  }

  markDirty(): void {
    this.dirty = true;
    if (!this.timer && !this.writing) this.arm();
  }

  /** Writes now if anything changed (waits for a write in progress first). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing) await this.writing;
    if (this.dirty) await this.write(false);
  }

  private arm(): void {
    const delay = Math.max(this.minIntervalMs, this.lastDurationMs * 10);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write(true);
    }, delay);
    this.timer.unref();
  }

  private async write(rearm: boolean): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    const started = performance.now();
    const run = (async () => {
      try {
        await writeFileAtomic(this.path, this.serialize());
        this.writes++;
      } catch (err) {
        this.dirty = true; // try again at the next interval
        this.opts.onError?.(err);
      }
    })();
    this.writing = run;
    try {
      await run;
    } finally {
      this.writing = undefined;
      this.lastDurationMs = performance.now() - started;
    }
    if (rearm && this.dirty && !this.timer) this.arm();
  }
}
