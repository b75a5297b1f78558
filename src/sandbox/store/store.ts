// The sandbox's store: the only writer of its state. Every change is one method here, and runs
// in a transaction (transactions.ts: joining the caller's, or the batch of its event-loop turn),
// so a change and the events it fires commit together or not at all. Reads come from in-memory
// indexes, one module per domain (accounts.ts, api-keys.ts, balances.ts, transfers.ts,
// agents.ts, idempotency.ts, webhooks.ts), that mirror the database; they are loaded from it at
// start, and again if a transaction ever rolls back.
import type { Sealer } from '../crypto/sealer.js';
import type {
  Account, AgentStatus, ApiKeyRecord, Approval, AttemptRecord, Delivery, HeldTransaction, IdempotencyRecord, SpendPolicyRecord, StoredEvent,
  Transfer,
} from '../records.js';
import { AccountIndex } from './accounts.js';
import { HeldTransactions, Policies, type HeldDecision } from './agents.js';
import { ApiKeyIndex } from './api-keys.js';
import { Balances } from './balances.js';
import { closeDatabase, type Db } from './db.js';
import { EventBus, type Listener, type SandboxEvent, type SandboxEventType } from './events.js';
import { IdempotencyRecords, type IdempotencyEntry } from './idempotency.js';
import { prepareStatements, WORLD_TABLES, type Statements } from './statements.js';
import { Transactions, type TxOptions } from './transactions.js';
import { Transfers, type TransferQuery } from './transfers.js';
import { WebhookState, type Subscription, type SubscriptionHealth, type WebhookReads, type WebhookRows } from './webhooks.js';

export interface StoreOptions {
  /** Called after a rollback: memory no longer matches the database and must be reloaded. */
  onRollback?: (err: unknown) => void;
  /** Errors of what runs after a batch commits (nobody else would see them). */
  onError?: (err: unknown) => void;
}

export class Store {
  private readonly stmt: Statements;
  private readonly txs: Transactions;
  private readonly bus = new EventBus();
  private readonly accountIndex: AccountIndex;
  private readonly keyIndex: ApiKeyIndex;
  private readonly balances: Balances;
  private readonly transfers: Transfers;
  private readonly policies: Policies;
  private readonly held: HeldTransactions;
  private readonly idempotency: IdempotencyRecords;
  private readonly webhookState: WebhookState;

  constructor(
    private readonly db: Db,
    sealer: Sealer,
    opts: StoreOptions = {},
  ) {
    this.stmt = prepareStatements(db);
    this.txs = new Transactions(db, {
      beforeCommit: () => this.balances.writeChanged(),
      afterRollback: () => this.balances.forgetChanged(),
      ...opts,
    });
    this.accountIndex = new AccountIndex(this.stmt, this.txs);
    this.keyIndex = new ApiKeyIndex(this.stmt, this.txs);
    this.balances = new Balances(this.stmt, this.txs, sealer, (id) => this.accountIndex.get(id));
    this.transfers = new Transfers(this.stmt, this.txs);
    this.policies = new Policies(this.stmt, this.txs);
    this.held = new HeldTransactions(this.stmt, this.txs);
    this.idempotency = new IdempotencyRecords(this.stmt, this.txs);
    this.webhookState = new WebhookState(this.stmt, this.txs, sealer);
  }

  // ---- transactions (transactions.ts) -------------------------------------------------------

  /** Runs `fn` (synchronous) in one transaction, or inside the caller's; StateLockedError when the write lock cannot be had. */
  tx<T>(fn: () => T, opts?: TxOptions): T {
    return this.txs.tx(fn, opts);
  }

  /** Runs `fn` (synchronous) in the batch of this event-loop turn; resolves once it has committed. */
  txGrouped<T>(fn: () => T): Promise<T> {
    return this.txs.txGrouped(fn);
  }

  /** Settles once every write made so far is committed; rejects if its batch rolls back instead. */
  committed(): Promise<void> {
    return this.txs.committed();
  }

  /** Runs `fn` once the current transaction has committed (at once outside one). */
  onCommit(fn: () => void): void {
    this.txs.onCommit(fn);
  }

  get inTransaction(): boolean {
    return this.txs.inTransaction;
  }

  /**
   * Writes what reads left in memory only (key-use statistics, balance ciphertexts), with `meta`
   * (the clock), in one transaction: every second, and at close. When it fails (the database is
   * locked by another program), memory is left as it is and all of it is still to be written:
   * the next flush tries again.
   */
  flush(opts: { wait?: boolean; meta?: Readonly<Record<string, string>> } = {}): void {
    const meta = Object.entries(opts.meta ?? {});
    if (!this.keyIndex.hasUnsavedUse && !this.balances.hasUnsavedCiphertexts && !meta.length) return;
    this.tx(() => {
      this.keyIndex.writeUse();
      this.balances.writeCiphertexts();
      for (const [key, value] of meta) this.txs.run(this.stmt.putMeta, key, value);
    }, { wait: opts.wait ?? true, memoryAhead: true });
  }

  // ---- events (events.ts) -------------------------------------------------------------------

  on<T extends SandboxEventType>(type: T, fn: Listener<T>): () => void {
    return this.bus.on(type, fn);
  }

  /** Fires an event inside the current transaction: what listeners write commits with the change. */
  emit(event: SandboxEvent): void {
    this.bus.emit(event);
  }

  // ---- meta ---------------------------------------------------------------------------------

  meta(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.tx(() => this.txs.run(this.stmt.putMeta, key, value));
  }

  // ---- accounts (accounts.ts) ---------------------------------------------------------------

  account(id: string): Account | undefined {
    return this.accountIndex.get(id);
  }

  accountByHandle(handle: string): Account | undefined {
    return this.accountIndex.withHandle(handle);
  }

  accountByAddress(address: string): Account | undefined {
    return this.accountIndex.withAddress(address);
  }

  accounts(): IterableIterator<Account> {
    return this.accountIndex.all();
  }

  /** The agents an account owns, in creation order. */
  agentsOf(ownerId: string): Account[] {
    return this.accountIndex.agentsOf(ownerId);
  }

  addAccount(account: Account): Account {
    this.accountIndex.checkFree(account);
    return this.tx(() => {
      this.accountIndex.add(account);
      this.emit({ type: 'account.created', account, at: account.created_at });
      return account;
    });
  }

  /** Sets an agent's status; the status it already has changes nothing. */
  setAgentStatus(agent: Account, status: AgentStatus): Account {
    if ((agent.status ?? 'active') === status) return agent;
    return this.tx(() => {
      this.accountIndex.setStatus(agent, status);
      return agent;
    });
  }

  // ---- API keys (api-keys.ts) ---------------------------------------------------------------

  key(id: string): ApiKeyRecord | undefined {
    return this.keyIndex.get(id);
  }

  keyByHash(hash: string): ApiKeyRecord | undefined {
    return this.keyIndex.withHash(hash);
  }

  keys(): IterableIterator<ApiKeyRecord> {
    return this.keyIndex.all();
  }

  addKey(record: ApiKeyRecord): ApiKeyRecord {
    return this.tx(() => {
      this.keyIndex.add(record);
      return record;
    });
  }

  /** Counts one authenticated request. In memory: a read stays a read; flush() writes it. */
  recordKeyUse(key: ApiKeyRecord, at: number): void {
    this.keyIndex.recordUse(key, at);
  }

  revokeKey(key: ApiKeyRecord, at: number): ApiKeyRecord {
    if (key.revoked_at !== null) return key;
    return this.tx(() => {
      this.keyIndex.revoke(key, at);
      return key;
    });
  }

  // ---- balances (balances.ts) ---------------------------------------------------------------

  balance(accountId: string, asset: string): bigint {
    return this.balances.units(accountId, asset);
  }

  /** The version of a balance: it goes up at every change. */
  balanceVersion(accountId: string, asset: string): number {
    return this.balances.version(accountId, asset);
  }

  /** Assets the account has ever held (zero balances included), in first-held order. */
  assets(accountId: string): string[] {
    return this.balances.assets(accountId);
  }

  /** Adds units; false (and nothing changes) past MAX_BALANCE_UNITS unless `uncapped` (a refund). */
  credit(accountId: string, asset: string, units: bigint, opts: { uncapped?: boolean } = {}): boolean {
    return this.balances.credit(accountId, asset, units, opts);
  }

  /** Removes units if the balance covers them; false (and nothing changes) otherwise. */
  debit(accountId: string, asset: string, units: bigint): boolean {
    return this.balances.debit(accountId, asset, units);
  }

  /** The account's balance ciphertexts to its viewing key, per asset (made when first read, then kept). */
  balanceCiphertexts(accountId: string): Map<string, { version: number; ciphertext: string }> {
    return this.balances.ciphertexts(accountId);
  }

  // ---- transfers (transfers.ts) -------------------------------------------------------------

  transfer(id: string): Transfer | undefined {
    return this.transfers.get(id);
  }

  allTransfers(): IterableIterator<Transfer> {
    return this.transfers.all();
  }

  /** Transfers still waiting for the chain, in creation order. */
  pendingTransfers(): Transfer[] {
    return this.transfers.pending();
  }

  /**
   * A transfer the account may read: its sender, its recipient, or the owner of an agent on
   * either side (docs/sandbox.md "Who sees which transfer"). Anyone else: undefined.
   */
  transferFor(accountId: string, transferId: string): Transfer | undefined {
    const t = this.transfers.get(transferId);
    if (!t) return undefined;
    if (t.from_account_id === accountId || t.to_account_id === accountId) return t;
    const ownerOf = (id: string | null) => (id ? this.accountIndex.get(id)?.parent_account_id : undefined);
    return ownerOf(t.from_account_id) === accountId || ownerOf(t.to_account_id) === accountId ? t : undefined;
  }

  countTransfers(accountId: string): number {
    return this.transfers.countOf(accountId);
  }

  addTransfer(t: Transfer): Transfer {
    return this.tx(() => {
      this.transfers.add(t);
      this.emit({ type: 'transfer.initiated', transfer: t, at: t.created_at });
      return t;
    });
  }

  /** Records the chain's verdict on a pending transfer and fires its event. */
  settleTransfer(t: Transfer, status: 'confirmed' | 'failed', at: number): Transfer {
    return this.tx(() => {
      this.transfers.settle(t, status, at);
      this.emit({ type: status === 'confirmed' ? 'transfer.confirmed' : 'transfer.failed', transfer: t, at });
      return t;
    });
  }

  /** A page of the account's transfers, newest first. */
  listTransfers(accountId: string, q: TransferQuery): { items: Transfer[]; hasMore: boolean } {
    return this.transfers.page(accountId, q);
  }

  // ---- spend policies and held agent transactions (agents.ts) -------------------------------

  policy(agentId: string): SpendPolicyRecord | undefined {
    return this.policies.of(agentId);
  }

  allPolicies(): IterableIterator<SpendPolicyRecord> {
    return this.policies.all();
  }

  setPolicy(record: SpendPolicyRecord): SpendPolicyRecord {
    return this.tx(() => {
      this.policies.set(record);
      return record;
    });
  }

  heldTransaction(id: string): HeldTransaction | undefined {
    return this.held.get(id);
  }

  heldTransactions(): IterableIterator<HeldTransaction> {
    return this.held.all();
  }

  hold(h: HeldTransaction): HeldTransaction {
    return this.tx(() => {
      this.held.hold(h);
      this.emit({ type: 'agent.transaction.pending_approval', held: h, at: h.requested_at });
      return h;
    });
  }

  /** Records an approval short of the quorum: no transfer, no event (the transaction stays pending). */
  recordApproval(h: HeldTransaction, approval: Approval): HeldTransaction {
    return this.tx(() => {
      this.held.recordApproval(h, approval);
      return h;
    });
  }

  /** Records the approval that completes the quorum (with the transfer it made) or a rejection, and fires its event. */
  decideHeld(h: HeldTransaction, decision: HeldDecision, at: number): HeldTransaction {
    return this.tx(() => {
      this.held.decide(h, decision, at);
      this.emit({ type: decision.status === 'approved' ? 'agent.transaction.approved' : 'agent.transaction.rejected', held: h, at });
      return h;
    });
  }

  // ---- idempotency (idempotency.ts) ---------------------------------------------------------

  /** What is remembered of an Idempotency-Key at `now` (not its answer: idempotencyAnswer()). */
  idempotencyRecord(scope: string, key: string, now: number): IdempotencyEntry | undefined {
    return this.idempotency.get(scope, key, now);
  }

  /** The whole record of a remembered key, with its first answer (read from the database: replays only). */
  idempotencyAnswer(entry: IdempotencyEntry): IdempotencyRecord {
    return this.idempotency.record(entry);
  }

  idempotencyRecords(): IterableIterator<IdempotencyEntry> {
    return this.idempotency.all();
  }

  saveIdempotency(record: IdempotencyRecord): void {
    this.tx(() => this.idempotency.save(record));
  }

  // ---- webhooks (webhooks.ts) ---------------------------------------------------------------

  /** What the webhook engine reads; it changes that state only through the methods below. */
  get webhooks(): WebhookReads {
    return this.webhookState;
  }

  addSubscription(sub: Subscription): Subscription {
    return this.tx(() => {
      this.webhookState.addSubscription(sub);
      return sub;
    });
  }

  /** Replaces what the delivery limits track of a subscription: failing since, disabled (docs/webhooks.md). */
  setWebhookHealth(webhookId: string, health: SubscriptionHealth): void {
    this.tx(() => this.webhookState.setHealth(webhookId, health));
  }

  /** Deletes a subscription with its waiting deliveries and attempt log; returns the deliveries' ids. */
  removeSubscription(webhookId: string): string[] {
    return this.tx(() => this.webhookState.removeSubscription(webhookId));
  }

  /** Stores a webhook event, dropping the account's oldest beyond `keepPerAccount`. */
  addWebhookEvent(event: StoredEvent, keepPerAccount: number): void {
    this.tx(() => this.webhookState.addEvent(event, keepPerAccount));
  }

  addDelivery(d: Delivery): void {
    this.tx(() => this.webhookState.addDelivery(d));
  }

  /** Logs an attempt (a subscription keeps its newest `keep`) and reschedules its delivery, or ends it when `next` is null. */
  endAttempt(record: AttemptRecord, keep: number, next: { at: number; final: boolean } | null): void {
    this.tx(() => this.webhookState.endAttempt(record, keep, next));
  }

  /** The webhook records as the database holds them, in its order (the export). */
  webhookRecords(): WebhookRows {
    return WebhookState.rows(this.db);
  }

  // ---- whole state --------------------------------------------------------------------------

  /** Deletes every record (the caller seeds again, in the same transaction). Meta (the clock) stays. */
  clear(at: number): void {
    this.tx(() => {
      for (const table of WORLD_TABLES) this.txs.run(this.db.prepare(`DELETE FROM ${table}`));
      this.forget();
      this.emit({ type: 'state.reset', at });
    });
  }

  private forget(): void {
    this.accountIndex.clear();
    this.keyIndex.clear();
    this.balances.clear();
    this.transfers.clear();
    this.policies.clear();
    this.held.clear();
    this.idempotency.clear();
    this.webhookState.clear();
  }

  /** Whether the database holds a world (a fresh one must be seeded). */
  isEmpty(): boolean {
    return (this.db.prepare('SELECT count(*) AS n FROM accounts').get() as { n: number }).n === 0;
  }

  /**
   * (Re)loads memory from the database, checking every record against its schema and opening
   * every sealed balance and webhook secret (a wrong key file fails here, with SealError).
   */
  load(): void {
    this.forget();
    this.accountIndex.load(this.db);
    this.keyIndex.load(this.db);
    this.balances.load(this.db);
    this.transfers.load(this.db);
    this.policies.load(this.db);
    this.held.load(this.db);
    this.idempotency.load(this.db);
    this.webhookState.load(this.db);
  }

  /**
   * Commits what waits to be (the open batch), then closes the database; what reads left in
   * memory is the caller's to flush first. Returns what could not be saved (empty: everything).
   */
  close(): string[] {
    try {
      return this.txs.commitOpenBatch() ? [] : ['the last batch of changes, whose commit failed at close (none of it was acknowledged)'];
    } finally {
      closeDatabase(this.db);
    }
  }

  /** For tests and the export: every record kept, straight from the database. */
  tableRows(table: string): unknown[] {
    if (this.txs.batchOpen) this.balances.writeChanged(); // into the open batch: what it will commit
    return (this.db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]).map((r) => {
      const { _metadata: _ignored, ...rest } = r;
      return rest;
    });
  }
}
