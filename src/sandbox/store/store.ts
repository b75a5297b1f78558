// The sandbox's store: the only writer of its state. Every change goes through one method here,
// and every method writes through to SQLite inside a transaction (joining the caller's when
// there is one), so one request's effects commit together or not at all, before its answer is
// written. Reads come from in-memory indexes that mirror the database; they are loaded from it
// at start, and again if a transaction ever rolls back.
import { contexts } from '../../crypto/ciphertext.js';
import type { Sealer } from '../crypto/sealer.js';
import {
  AccountRecord, ApiKeyRecord, AttemptRecord, BalanceRecord, DeliveryRecord, EventRecord, HeldRecord, IdempotencyRecord,
  SpendPolicyRecord, SubscriptionRecord, TransferRecord,
  type Account, type AgentStatus, type Delivery, type HeldTransaction, type StoredEvent, type Transfer, type TransferStatus,
} from '../records.js';
import { aad } from '../seal-contexts.js';
import { closeDatabase, type Db } from './db.js';
import { encryptFor } from '../viewing.js';
import type * as z from 'zod/mini';

export type { Account, ApiKeyRecord, HeldTransaction, IdempotencyRecord, SpendPolicyRecord, Transfer, TransferStatus } from '../records.js';

/** The largest balance the sandbox holds for one account and asset (10^30 whole tokens). */
export const MAX_BALANCE_UNITS = 10n ** 36n;
/** How long an Idempotency-Key is remembered, on the sandbox clock. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface TransferQuery {
  limit: number;
  offset: number;
  status?: TransferStatus;
  /** Exclusive bounds on created_at, epoch ms. */
  after?: number;
  before?: number;
}

export type SandboxEvent =
  | { type: 'transfer.initiated'; transfer: Transfer; at: number }
  | { type: 'transfer.confirmed'; transfer: Transfer; at: number }
  | { type: 'transfer.failed'; transfer: Transfer; at: number }
  | { type: 'account.created'; account: Account; at: number }
  | { type: 'agent.transaction.pending_approval'; held: HeldTransaction; at: number }
  | { type: 'agent.transaction.approved'; held: HeldTransaction; at: number }
  | { type: 'agent.transaction.rejected'; held: HeldTransaction; at: number }
  | { type: 'agent.policy.updated'; agent: Account; policy_id: string; at: number }
  | { type: 'state.reset'; at: number };
export type SandboxEventType = SandboxEvent['type'];
type Listener<T extends SandboxEventType> = (event: Extract<SandboxEvent, { type: T }>) => void;

/** One balance in memory: the plaintext units (never written anywhere) and its viewing version. */
interface Balance {
  units: bigint;
  version: number;
  /** To the account's viewing key for `version`; made when first read. */
  ciphertext?: string;
  /** The ciphertext is in memory but not yet in the database. */
  unsaved?: boolean;
}

/** The webhook engine's records as stored (it keeps its own working copies). */
export interface WebhookRecords {
  subscriptions: z.infer<typeof SubscriptionRecord>[];
  events: StoredEvent[];
  deliveries: Delivery[];
  attempts: z.infer<typeof AttemptRecord>[];
}

export interface StoreOptions {
  /** Called after a rollback: memory no longer matches the database and must be reloaded. */
  onRollback?: (err: unknown) => void;
  /** Errors of what runs after a batch commits (nobody else would see them). */
  onError?: (err: unknown) => void;
}

/** A group commit: the transaction shared by the changing requests of one event-loop turn. */
interface Batch {
  /** Settles when the batch commits, or rejects when it rolls back. */
  done: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
  /** The write count when it began (a rollback reloads memory only if something was written). */
  writesBefore: number;
}

const COMMITTED = Promise.resolve();

type Row = { record: string };

export class Store {
  private readonly accountsById = new Map<string, Account>();
  private readonly accountsByHandle = new Map<string, Account>();
  private readonly accountsByAddress = new Map<string, Account>();
  private readonly keysById = new Map<string, ApiKeyRecord>();
  private readonly keysByHash = new Map<string, ApiKeyRecord>();
  private readonly balances = new Map<string, Map<string, Balance>>();
  private readonly transfers = new Map<string, Transfer>();
  /** Creation order of transfers in the database (their ids are random). */
  private transferSeq = 1;
  /** Per account: its transfers (sent or received) in creation order, hence created_at order. */
  private readonly transfersByAccount = new Map<string, Transfer[]>();
  private readonly policies = new Map<string, SpendPolicyRecord>();
  private readonly held = new Map<string, HeldTransaction>();
  /** In insertion (= creation time) order, so expired records are at the front. */
  private readonly idempotency = new Map<string, IdempotencyRecord>();
  private readonly listeners = new Map<SandboxEventType, Array<(e: SandboxEvent) => void>>();
  /** Key-use statistics not yet written (reads never write; flush() does, every second). */
  private readonly usedKeys = new Set<ApiKeyRecord>();
  private depth = 0;
  private afterCommit: Array<() => void> = [];
  private readonly stmt;

  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
    private readonly opts: StoreOptions = {},
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.stmt = {
      begin: p('BEGIN IMMEDIATE'),
      commit: p('COMMIT'),
      rollback: p('ROLLBACK'),
      putMeta: p('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      putAccount: p('INSERT INTO accounts (account_id, record) VALUES (?, ?) ON CONFLICT (account_id) DO UPDATE SET record = excluded.record'),
      putKey: p('INSERT INTO api_keys (key_id, record) VALUES (?, ?) ON CONFLICT (key_id) DO UPDATE SET record = excluded.record'),
      putBalance: p(`INSERT INTO balances (account_id, asset, sealed, version, ciphertext) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (account_id, asset) DO UPDATE SET sealed = excluded.sealed, version = excluded.version, ciphertext = excluded.ciphertext`),
      putBalanceCiphertext: p('UPDATE balances SET ciphertext = ? WHERE account_id = ? AND asset = ? AND version = ?'),
      addTransfer: p('INSERT INTO transfers (transfer_id, seq, record) VALUES (?, ?, ?)'),
      putTransfer: p('UPDATE transfers SET record = ? WHERE transfer_id = ?'),
      putPolicy: p('INSERT INTO policies (agent_account_id, record) VALUES (?, ?) ON CONFLICT (agent_account_id) DO UPDATE SET record = excluded.record'),
      putHeld: p('INSERT INTO held (transaction_id, record) VALUES (?, ?) ON CONFLICT (transaction_id) DO UPDATE SET record = excluded.record'),
      putIdempotency: p(`INSERT INTO idempotency (scope, key, created_at, record) VALUES (?, ?, ?, ?)
        ON CONFLICT (scope, key) DO UPDATE SET created_at = excluded.created_at, record = excluded.record`),
      dropIdempotency: p('DELETE FROM idempotency WHERE scope = ? AND key = ?'),
      putSubscription: p('INSERT INTO webhook_subscriptions (webhook_id, record) VALUES (?, ?) ON CONFLICT (webhook_id) DO UPDATE SET record = excluded.record'),
      dropSubscription: p('DELETE FROM webhook_subscriptions WHERE webhook_id = ?'),
      putEvent: p('INSERT INTO webhook_events (event_id, record) VALUES (?, ?) ON CONFLICT (event_id) DO UPDATE SET record = excluded.record'),
      dropEvent: p('DELETE FROM webhook_events WHERE event_id = ?'),
      putDelivery: p('INSERT INTO webhook_deliveries (delivery_id, record) VALUES (?, ?) ON CONFLICT (delivery_id) DO UPDATE SET record = excluded.record'),
      dropDelivery: p('DELETE FROM webhook_deliveries WHERE delivery_id = ?'),
      addAttempt: p('INSERT INTO webhook_attempts (webhook_id, record) VALUES (?, ?)'),
      dropAttemptsOf: p('DELETE FROM webhook_attempts WHERE webhook_id = ?'),
      dropOldAttempts: p('DELETE FROM webhook_attempts WHERE webhook_id = ? AND id <= (SELECT id FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)'),
    };
  }

  // ---- transactions -------------------------------------------------------------------------

  /**
   * Runs `fn` in one transaction (or inside the caller's): it commits when `fn` returns and rolls
   * back when it throws. `fn` must be synchronous, so no other request can interleave.
   */
  tx<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    // A batch still open commits first: this transaction's commit must not carry its writes.
    if (this.batch) this.commitBatch(this.batch);
    this.depth++;
    this.stmt.begin.run();
    const writesBefore = this.writes;
    let result: T;
    try {
      result = fn();
      if (result instanceof Promise) throw new Error('a store transaction must be synchronous');
      this.writeBalances();
      this.stmt.commit.run();
    } catch (err) {
      this.depth--;
      this.afterCommit = [];
      this.changedBalances.clear();
      // Memory changes only together with the rows it mirrors: if no row was written, nothing
      // in memory moved either, and there is nothing to reload.
      const wrote = this.writes !== writesBefore;
      try {
        this.stmt.rollback.run();
      } finally {
        if (wrote) this.opts.onRollback?.(err);
      }
      throw err;
    }
    this.depth--;
    const after = this.afterCommit;
    this.afterCommit = [];
    for (const fn of after) fn();
    return result;
  }

  // ---- group commit --------------------------------------------------------------------------
  //
  // Why: a commit costs about as much as all the statements of a request together (it appends
  // the changed pages to the WAL), so under load the sandbox spent most of its database time
  // committing. Requests that change something therefore commit in batches: the first one in an
  // event-loop turn opens a transaction, every other one that runs in the same turn joins it, and
  // the batch commits once the turn has taken in every request that was ready (setImmediate).
  //
  // What keeps "an answered write is on disk": no answer of a batch leaves before its COMMIT has
  // returned (txGrouped resolves only then; reads wait on committed(), since they may show the
  // batch's writes). A batch fails as a whole: when a request in it throws (an internal error) or
  // the COMMIT fails, everything in it rolls back, memory is reloaded from the database, and every
  // request of the batch answers 500 (not remembered for idempotency, so a retry runs again).
  // Requests still run one at a time, each on the state the previous ones left (a balance
  // reserved by one is gone for the next), exactly as with a transaction each.

  /**
   * Runs `fn` (synchronous) in the batch of this event-loop turn, opening it if needed. Resolves
   * with its result once the batch has committed, rejects if the batch fails; throws (and the
   * batch rolls back) if `fn` throws.
   */
  txGrouped<T>(fn: () => T): Promise<T> {
    if (this.depth > 0) return Promise.resolve(fn()); // inside a transaction already: part of it
    const batch = this.batch ?? this.openBatch();
    this.depth++;
    let result: T;
    try {
      result = fn();
      if (result instanceof Promise) throw new Error('a store transaction must be synchronous');
    } catch (err) {
      this.depth--;
      this.rollbackBatch(batch, err);
      throw err;
    }
    this.depth--;
    return batch.done.then(() => result);
  }

  /**
   * Settles once every write made so far is committed: at once when no batch is open, else when
   * the open batch commits; rejects if it rolls back instead.
   */
  committed(): Promise<void> {
    return this.batch?.done ?? COMMITTED;
  }

  private batch: Batch | undefined;

  private openBatch(): Batch {
    this.stmt.begin.run();
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    done.catch(() => {}); // a batch nobody waits for (only the sandbox's own work) fails quietly
    const batch: Batch = { done, resolve, reject, writesBefore: this.writes };
    this.batch = batch;
    setImmediate(() => this.commitBatch(batch));
    return batch;
  }

  /** Commits a batch (at the end of its turn, or earlier: before another transaction, at close). */
  private commitBatch(batch: Batch): void {
    if (this.batch !== batch) return; // already committed or rolled back
    try {
      this.writeBalances();
      this.stmt.commit.run();
    } catch (err) {
      this.rollbackBatch(batch, err);
      return;
    }
    this.batch = undefined;
    batch.resolve();
    const after = this.afterCommit;
    this.afterCommit = [];
    for (const fn of after) {
      try {
        fn();
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
  }

  private rollbackBatch(batch: Batch, cause: unknown): void {
    this.batch = undefined;
    this.afterCommit = [];
    this.changedBalances.clear();
    const wrote = this.writes !== batch.writesBefore;
    try {
      // A failed COMMIT may have ended the transaction already.
      if (this.db.inTransaction) this.stmt.rollback.run();
    } catch (err) {
      this.opts.onError?.(err); // runs from setImmediate too: nobody else would catch it
    }
    batch.reject(new Error(`rolled back with the batch it was committed in (${(cause as Error)?.message ?? String(cause)})`, { cause }));
    if (wrote) this.opts.onRollback?.(cause);
  }

  /** Runs a writing statement, counting it (a rollback after a write must reload memory). */
  private write(stmt: { run(...params: unknown[]): unknown }, ...params: unknown[]): void {
    this.writes++;
    stmt.run(...params);
  }
  private writes = 0;

  /** Runs `fn` once the current transaction has committed (at once outside one). */
  onCommit(fn: () => void): void {
    if (this.depth > 0) this.afterCommit.push(fn);
    else fn();
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  /** Writes what reads left in memory only (key-use statistics, balance ciphertexts): every second, and at close. */
  flush(): void {
    if (!this.usedKeys.size && !this.hasUnsavedCiphertexts) return;
    this.tx(() => this.flushUnsaved());
  }

  private hasUnsavedCiphertexts = false;

  private flushUnsaved(): void {
    for (const k of this.usedKeys) this.write(this.stmt.putKey, k.key_id, JSON.stringify(k));
    this.usedKeys.clear();
    if (!this.hasUnsavedCiphertexts) return;
    for (const [accountId, perAsset] of this.balances) {
      for (const [asset, b] of perAsset) {
        if (!b.unsaved || !b.ciphertext) continue;
        this.write(this.stmt.putBalanceCiphertext, b.ciphertext, accountId, asset, b.version);
        b.unsaved = false;
      }
    }
    this.hasUnsavedCiphertexts = false;
  }

  // ---- events -------------------------------------------------------------------------------

  on<T extends SandboxEventType>(type: T, fn: Listener<T>): () => void {
    const list = this.listeners.get(type) ?? [];
    list.push(fn as (e: SandboxEvent) => void);
    this.listeners.set(type, list);
    return () => {
      const i = list.indexOf(fn as (e: SandboxEvent) => void);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /**
   * Calls the listeners inside the current transaction: what they write commits with the change,
   * and a listener that fails fails the change (all of it rolls back: no transfer without its
   * events and deliveries).
   */
  emit(event: SandboxEvent): void {
    for (const fn of this.listeners.get(event.type) ?? []) fn(event);
  }

  // ---- meta ---------------------------------------------------------------------------------

  meta(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.tx(() => this.write(this.stmt.putMeta, key, value));
  }

  // ---- accounts -----------------------------------------------------------------------------

  account(id: string): Account | undefined {
    return this.accountsById.get(id);
  }

  accountByHandle(handle: string): Account | undefined {
    return this.accountsByHandle.get(handle.toLowerCase());
  }

  accountByAddress(address: string): Account | undefined {
    return this.accountsByAddress.get(address.toLowerCase());
  }

  accounts(): IterableIterator<Account> {
    return this.accountsById.values();
  }

  /** The agents an account owns, in creation order. */
  agentsOf(ownerId: string): Account[] {
    const out: Account[] = [];
    for (const a of this.accountsById.values()) if (a.parent_account_id === ownerId) out.push(a);
    return out;
  }

  addAccount(account: Account): Account {
    if (this.accountsByHandle.has(account.handle.toLowerCase())) throw new Error(`handle ${account.handle} is taken`);
    if (this.accountsByAddress.has(account.public_key.toLowerCase())) throw new Error(`address ${account.public_key} is taken`);
    return this.tx(() => {
      this.write(this.stmt.putAccount, account.account_id, JSON.stringify(account));
      this.indexAccount(account);
      this.emit({ type: 'account.created', account, at: account.created_at });
      return account;
    });
  }

  /** Sets an agent's status; the status it already has changes nothing. */
  setAgentStatus(agent: Account, status: AgentStatus): Account {
    if ((agent.status ?? 'active') === status) return agent;
    return this.tx(() => {
      agent.status = status;
      this.write(this.stmt.putAccount, agent.account_id, JSON.stringify(agent));
      return agent;
    });
  }

  private indexAccount(a: Account): void {
    this.accountsById.set(a.account_id, a);
    this.accountsByHandle.set(a.handle.toLowerCase(), a);
    this.accountsByAddress.set(a.public_key.toLowerCase(), a);
  }

  // ---- API keys -----------------------------------------------------------------------------

  key(id: string): ApiKeyRecord | undefined {
    return this.keysById.get(id);
  }

  keyByHash(hash: string): ApiKeyRecord | undefined {
    return this.keysByHash.get(hash);
  }

  keys(): IterableIterator<ApiKeyRecord> {
    return this.keysById.values();
  }

  addKey(record: ApiKeyRecord): ApiKeyRecord {
    return this.tx(() => {
      this.write(this.stmt.putKey, record.key_id, JSON.stringify(record));
      this.keysById.set(record.key_id, record);
      this.keysByHash.set(record.hash, record);
      return record;
    });
  }

  /** Counts one authenticated request. In memory: a read stays a read; flush() writes it. */
  recordKeyUse(key: ApiKeyRecord, at: number): void {
    key.last_used_at = at;
    key.request_count++;
    this.usedKeys.add(key);
  }

  revokeKey(key: ApiKeyRecord, at: number): ApiKeyRecord {
    if (key.revoked_at !== null) return key;
    return this.tx(() => {
      key.revoked_at = at;
      this.write(this.stmt.putKey, key.key_id, JSON.stringify(key));
      return key;
    });
  }

  // ---- balances -----------------------------------------------------------------------------

  balance(accountId: string, asset: string): bigint {
    return this.balances.get(accountId)?.get(asset)?.units ?? 0n;
  }

  /** The version of a balance: it goes up at every change. */
  balanceVersion(accountId: string, asset: string): number {
    return this.balances.get(accountId)?.get(asset)?.version ?? 0;
  }

  /** Assets the account has ever held (zero balances included), in first-held order. */
  assets(accountId: string): string[] {
    return [...(this.balances.get(accountId)?.keys() ?? [])];
  }

  /** Adds units; false (and nothing changes) past MAX_BALANCE_UNITS unless `uncapped` (a refund). */
  credit(accountId: string, asset: string, units: bigint, opts: { uncapped?: boolean } = {}): boolean {
    if (units < 0n) throw new RangeError('credit must not be negative');
    const next = this.balance(accountId, asset) + units;
    if (next > MAX_BALANCE_UNITS && !opts.uncapped) return false;
    this.setBalance(accountId, asset, next);
    return true;
  }

  /** Removes units if the balance covers them; false (and nothing changes) otherwise. */
  debit(accountId: string, asset: string, units: bigint): boolean {
    if (units <= 0n) throw new RangeError('debit must be positive');
    const current = this.balance(accountId, asset);
    if (current < units) return false;
    this.setBalance(accountId, asset, current - units);
    return true;
  }

  private setBalance(accountId: string, asset: string, units: bigint): void {
    this.tx(() => {
      let perAsset = this.balances.get(accountId);
      if (!perAsset) this.balances.set(accountId, (perAsset = new Map()));
      const version = (perAsset.get(asset)?.version ?? 0) + 1;
      perAsset.set(asset, { units, version });
      this.writes++; // memory moved: a rollback must reload it
      this.changedBalances.add(balanceKey(accountId, asset));
    });
  }

  /**
   * Balances changed in the current transaction (`account_id \0 asset`). Each is sealed and
   * written once, just before the COMMIT, with its last value and version: a batch of transfers
   * from one account seals and writes its balance once, not once per transfer. The row still
   * commits in the same transaction as every change that moved it.
   */
  private readonly changedBalances = new Set<string>();

  private writeBalances(): void {
    if (!this.changedBalances.size) return;
    for (const k of this.changedBalances) {
      const [accountId, asset] = k.split('\u0000') as [string, string];
      const b = this.balances.get(accountId)?.get(asset);
      if (!b) continue;
      this.write(this.stmt.putBalance, accountId, asset, this.sealer.sealAmount(b.units, aad.balance(accountId, asset)), b.version, b.ciphertext ?? null);
      b.unsaved = false;
    }
    this.changedBalances.clear();
  }

  /**
   * The account's balance ciphertexts to its viewing key, per asset. A version's ciphertext is
   * made when first read (a burst of transfers costs one encryption per read, not per change) and
   * kept, so two reads of an unchanged balance answer the same bytes.
   */
  balanceCiphertexts(accountId: string): Map<string, { version: number; ciphertext: string }> {
    const out = new Map<string, { version: number; ciphertext: string }>();
    const perAsset = this.balances.get(accountId);
    if (!perAsset) return out;
    for (const [asset, b] of perAsset) {
      if (!b.ciphertext) {
        const ciphertext = encryptFor(this.accountsById.get(accountId), b.units.toString(), contexts.balance(accountId, asset, b.version));
        if (!ciphertext) continue;
        b.ciphertext = ciphertext;
        b.unsaved = true;
        this.hasUnsavedCiphertexts = true;
      }
      out.set(asset, { version: b.version, ciphertext: b.ciphertext });
    }
    return out;
  }

  // ---- transfers ----------------------------------------------------------------------------

  transfer(id: string): Transfer | undefined {
    return this.transfers.get(id);
  }

  allTransfers(): IterableIterator<Transfer> {
    return this.transfers.values();
  }

  /** Transfers still waiting for the chain, in creation order. */
  pendingTransfers(): Transfer[] {
    const out: Transfer[] = [];
    for (const t of this.transfers.values()) if (t.status === 'pending') out.push(t);
    return out;
  }

  /**
   * A transfer the account may read: its sender, its recipient, or the owner of an agent on
   * either side (docs/sandbox.md "Who sees which transfer"). Anyone else: undefined.
   */
  transferFor(accountId: string, transferId: string): Transfer | undefined {
    const t = this.transfers.get(transferId);
    if (!t) return undefined;
    if (t.from_account_id === accountId || t.to_account_id === accountId) return t;
    const ownerOf = (id: string | null) => (id ? this.accountsById.get(id)?.parent_account_id : undefined);
    return ownerOf(t.from_account_id) === accountId || ownerOf(t.to_account_id) === accountId ? t : undefined;
  }

  countTransfers(accountId: string): number {
    return this.transfersByAccount.get(accountId)?.length ?? 0;
  }

  addTransfer(t: Transfer): Transfer {
    return this.tx(() => {
      this.write(this.stmt.addTransfer, t.transfer_id, this.transferSeq++, JSON.stringify(t));
      this.indexTransfer(t);
      this.emit({ type: 'transfer.initiated', transfer: t, at: t.created_at });
      return t;
    });
  }

  /** Records the chain's verdict on a pending transfer and fires its event. */
  settleTransfer(t: Transfer, status: 'confirmed' | 'failed', at: number): Transfer {
    return this.tx(() => {
      t.status = status;
      if (status === 'confirmed') t.confirmed_at = at;
      else t.failed_at = at;
      this.write(this.stmt.putTransfer, JSON.stringify(t), t.transfer_id);
      this.emit({ type: status === 'confirmed' ? 'transfer.confirmed' : 'transfer.failed', transfer: t, at });
      return t;
    });
  }

  private indexTransfer(t: Transfer): void {
    this.transfers.set(t.transfer_id, t);
    this.appendTo(t.from_account_id, t);
    if (t.to_account_id && t.to_account_id !== t.from_account_id) this.appendTo(t.to_account_id, t);
  }

  private appendTo(accountId: string, t: Transfer): void {
    let list = this.transfersByAccount.get(accountId);
    if (!list) this.transfersByAccount.set(accountId, (list = []));
    list.push(t);
  }

  /**
   * Newest first. Time bounds are found by binary search over the account's list (kept in
   * created_at order); without a status filter a page costs O(limit + log n). A status filter
   * walks the time window from the newest end and stops one match past the page.
   */
  listTransfers(accountId: string, q: TransferQuery): { items: Transfer[]; hasMore: boolean } {
    const list = this.transfersByAccount.get(accountId) ?? [];
    const lo = q.after === undefined ? 0 : firstIndexAfter(list, q.after);
    const hi = q.before === undefined ? list.length : firstIndexAtOrAfter(list, q.before);
    const items: Transfer[] = [];
    if (!q.status) {
      const start = hi - 1 - q.offset;
      for (let i = start; i >= lo && items.length < q.limit; i--) items.push(list[i]!);
      return { items, hasMore: hi - lo > q.offset + q.limit };
    }
    let skipped = 0;
    for (let i = hi - 1; i >= lo; i--) {
      const t = list[i]!;
      if (t.status !== q.status) continue;
      if (skipped < q.offset) {
        skipped++;
        continue;
      }
      if (items.length === q.limit) return { items, hasMore: true };
      items.push(t);
    }
    return { items, hasMore: false };
  }

  // ---- spend policies -----------------------------------------------------------------------

  policy(agentId: string): SpendPolicyRecord | undefined {
    return this.policies.get(agentId);
  }

  allPolicies(): IterableIterator<SpendPolicyRecord> {
    return this.policies.values();
  }

  setPolicy(record: SpendPolicyRecord): SpendPolicyRecord {
    return this.tx(() => {
      this.write(this.stmt.putPolicy, record.agent_account_id, JSON.stringify(record));
      this.policies.set(record.agent_account_id, record);
      return record;
    });
  }

  // ---- held agent transactions --------------------------------------------------------------

  heldTransaction(id: string): HeldTransaction | undefined {
    return this.held.get(id);
  }

  heldTransactions(): IterableIterator<HeldTransaction> {
    return this.held.values();
  }

  hold(h: HeldTransaction): HeldTransaction {
    return this.tx(() => {
      this.write(this.stmt.putHeld, h.transaction_id, JSON.stringify(h));
      this.held.set(h.transaction_id, h);
      this.emit({ type: 'agent.transaction.pending_approval', held: h, at: h.requested_at });
      return h;
    });
  }

  /** Records an approval (with the transfer it made) or a rejection, and fires its event. */
  decideHeld(h: HeldTransaction, decision: { status: 'approved'; transferId: string } | { status: 'rejected' }, at: number): HeldTransaction {
    return this.tx(() => {
      h.status = decision.status;
      h.decided_at = at;
      if (decision.status === 'approved') h.transfer_id = decision.transferId;
      this.write(this.stmt.putHeld, h.transaction_id, JSON.stringify(h));
      this.emit({ type: decision.status === 'approved' ? 'agent.transaction.approved' : 'agent.transaction.rejected', held: h, at });
      return h;
    });
  }

  // ---- idempotency --------------------------------------------------------------------------

  idempotencyRecord(scope: string, key: string, now: number): IdempotencyRecord | undefined {
    const r = this.idempotency.get(idemKey(scope, key));
    return r && now - r.created_at < IDEMPOTENCY_TTL_MS ? r : undefined;
  }

  idempotencyRecords(): IterableIterator<IdempotencyRecord> {
    return this.idempotency.values();
  }

  saveIdempotency(record: IdempotencyRecord): void {
    this.tx(() => {
      for (const [k, r] of this.idempotency) {
        if (record.created_at - r.created_at < IDEMPOTENCY_TTL_MS) break;
        this.idempotency.delete(k);
        this.write(this.stmt.dropIdempotency, r.scope, r.key);
      }
      const k = idemKey(record.scope, record.key);
      this.idempotency.delete(k); // re-insert at the end to keep time order
      this.idempotency.set(k, record);
      this.write(this.stmt.putIdempotency, record.scope, record.key, record.created_at, JSON.stringify(record));
    });
  }

  // ---- webhook engine records ---------------------------------------------------------------

  putSubscription(s: z.infer<typeof SubscriptionRecord>): void {
    this.tx(() => this.write(this.stmt.putSubscription, s.webhook_id, JSON.stringify(s)));
  }

  /** Deletes a subscription with its waiting deliveries and attempt log. */
  dropSubscription(webhookId: string, deliveryIds: readonly string[]): void {
    this.tx(() => {
      this.write(this.stmt.dropSubscription, webhookId);
      for (const id of deliveryIds) this.write(this.stmt.dropDelivery, id);
      this.write(this.stmt.dropAttemptsOf, webhookId);
    });
  }

  putEvent(e: StoredEvent, evicted: readonly string[] = []): void {
    this.tx(() => {
      this.write(this.stmt.putEvent, e.event_id, JSON.stringify(e));
      for (const id of evicted) this.write(this.stmt.dropEvent, id);
    });
  }

  putDelivery(d: Delivery): void {
    // Only the stored fields: the engine's working copy carries timers and controllers.
    const record: Delivery = {
      delivery_id: d.delivery_id, webhook_id: d.webhook_id, event_id: d.event_id, event: d.event, body: d.body,
      attempts: d.attempts, first_attempt_at: d.first_attempt_at, due_at: d.due_at, final: d.final, replay: d.replay,
    };
    this.tx(() => this.write(this.stmt.putDelivery, d.delivery_id, JSON.stringify(record)));
  }

  dropDelivery(deliveryId: string): void {
    this.tx(() => this.write(this.stmt.dropDelivery, deliveryId));
  }

  /** Appends to a subscription's attempt log, keeping its newest `keep`. */
  addAttempt(r: z.infer<typeof AttemptRecord>, keep: number): void {
    this.tx(() => {
      this.write(this.stmt.addAttempt, r.webhook_id, JSON.stringify(r));
      this.write(this.stmt.dropOldAttempts, r.webhook_id, r.webhook_id, keep);
    });
  }

  /** What the webhook engine loads at start (deliveries in due order, attempts in log order). */
  webhookRecords(): WebhookRecords {
    return {
      subscriptions: this.rows('SELECT record FROM webhook_subscriptions ORDER BY rowid', SubscriptionRecord),
      events: this.rows('SELECT record FROM webhook_events ORDER BY rowid', EventRecord),
      deliveries: this.rows('SELECT record FROM webhook_deliveries ORDER BY rowid', DeliveryRecord),
      attempts: this.rows('SELECT record FROM webhook_attempts ORDER BY id', AttemptRecord),
    };
  }

  // ---- whole state --------------------------------------------------------------------------

  /** Deletes every record (the caller seeds again, in the same transaction). Meta (the clock) stays. */
  clear(at: number): void {
    this.tx(() => {
      for (const table of ['accounts', 'api_keys', 'balances', 'transfers', 'policies', 'held', 'idempotency',
        'webhook_subscriptions', 'webhook_events', 'webhook_deliveries', 'webhook_attempts']) {
        this.write(this.db.prepare(`DELETE FROM ${table}`));
      }
      this.forget();
      this.emit({ type: 'state.reset', at });
    });
  }

  private forget(): void {
    this.accountsById.clear();
    this.accountsByHandle.clear();
    this.accountsByAddress.clear();
    this.keysById.clear();
    this.keysByHash.clear();
    this.balances.clear();
    this.transfers.clear();
    this.transfersByAccount.clear();
    this.policies.clear();
    this.held.clear();
    this.idempotency.clear();
    this.usedKeys.clear();
    this.changedBalances.clear();
    this.hasUnsavedCiphertexts = false;
  }

  /** Whether the database holds a world (a fresh one must be seeded). */
  isEmpty(): boolean {
    return (this.db.prepare('SELECT count(*) AS n FROM accounts').get() as { n: number }).n === 0;
  }

  /**
   * (Re)loads memory from the database, checking every record against its schema and opening
   * every sealed balance (a wrong key file fails here, with SealError).
   */
  load(): void {
    this.forget();
    for (const a of this.rows('SELECT record FROM accounts ORDER BY rowid', AccountRecord)) {
      if (a.type === 'agent' && !a.status) a.status = 'active'; // saved before agents could be suspended
      this.indexAccount(a);
    }
    for (const k of this.rows('SELECT record FROM api_keys ORDER BY rowid', ApiKeyRecord)) {
      this.keysById.set(k.key_id, k);
      this.keysByHash.set(k.hash, k);
    }
    const balances = this.db.prepare('SELECT account_id, asset, sealed, version, ciphertext FROM balances ORDER BY rowid').all() as unknown[];
    for (const raw of balances) {
      const b = BalanceRecord.parse(withoutNullFields(raw));
      let perAsset = this.balances.get(b.account_id);
      if (!perAsset) this.balances.set(b.account_id, (perAsset = new Map()));
      const units = this.sealer.openAmount(b.sealed, aad.balance(b.account_id, b.asset));
      perAsset.set(b.asset, { units, version: b.version, ...(b.ciphertext ? { ciphertext: b.ciphertext } : {}) });
    }
    const transfers = this.rows('SELECT record FROM transfers ORDER BY seq', TransferRecord);
    this.transferSeq = Number((this.db.prepare('SELECT coalesce(max(seq), 0) + 1 AS n FROM transfers').get() as { n: number }).n);
    if (!isSortedBy(transfers, (t) => t.created_at)) transfers.sort((a, b) => a.created_at - b.created_at);
    for (const t of transfers) this.indexTransfer(t);
    for (const p of this.rows('SELECT record FROM policies ORDER BY rowid', SpendPolicyRecord)) this.policies.set(p.agent_account_id, p);
    for (const h of this.rows('SELECT record FROM held ORDER BY rowid', HeldRecord)) this.held.set(h.transaction_id, h);
    for (const r of this.rows('SELECT record FROM idempotency ORDER BY created_at', IdempotencyRecord)) {
      this.idempotency.set(idemKey(r.scope, r.key), r);
    }
  }

  private rows<T extends z.ZodMiniType>(sql: string, schema: T): z.infer<T>[] {
    return (this.db.prepare(sql).all() as Row[]).map((r) => schema.parse(JSON.parse(r.record)) as z.infer<T>);
  }

  /** Commits what waits to be, writes what reads left in memory, then closes the database. */
  close(): void {
    try {
      if (this.batch) this.commitBatch(this.batch);
      this.flush();
    } finally {
      closeDatabase(this.db);
    }
  }

  /** For tests and the export: every record kept, straight from the database. */
  tableRows(table: string): unknown[] {
    if (this.batch) this.writeBalances(); // into the open batch: what it will commit
    return (this.db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]).map((r) => {
      const { _metadata: _ignored, ...rest } = r;
      return rest;
    });
  }
}

function balanceKey(accountId: string, asset: string): string {
  return `${accountId}\u0000${asset}`;
}

function idemKey(scope: string, key: string): string {
  return `${scope}\u0000${key}`;
}

function withoutNullFields(row: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row as Record<string, unknown>)) if (v !== null && k !== '_metadata') out[k] = v;
  return out;
}

function isSortedBy<T>(list: readonly T[], by: (v: T) => number): boolean {
  for (let i = 1; i < list.length; i++) if (by(list[i - 1]!) > by(list[i]!)) return false;
  return true;
}

/** First index whose created_at is strictly after t. */
function firstIndexAfter(list: readonly Transfer[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.created_at <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose created_at is at or after t. */
function firstIndexAtOrAfter(list: readonly Transfer[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.created_at < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
