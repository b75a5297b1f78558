// The sandbox's state: one class of maps and indexes (accounts, API keys, transfers,
// idempotency records, balances) that emits events for the chain and, later, webhooks.
// Handlers read and change state only through it; persist.ts snapshots it.
import type { PolicyFields } from '../domain/policy.js';
import { Ledger, type SealedBalance } from './ledger.js';
import { BalanceViews, type ReaderCiphertexts } from './viewing.js';

export type AccountType = 'personal' | 'business' | 'agent';
export type KycStatus = 'unverified' | 'pending' | 'verified' | 'enhanced';
/** An agent's status (sandbox decision: the spec names only `active`). */
export type AgentStatus = 'active' | 'suspended';
export const AGENT_STATUSES: readonly AgentStatus[] = ['active', 'suspended'];
export type TransferStatus = 'pending' | 'confirmed' | 'failed';
export const TRANSFER_STATUSES: readonly TransferStatus[] = ['pending', 'confirmed', 'failed'];

export interface Account {
  account_id: string;
  handle: string;
  type: AccountType;
  /** Chain address, 0x + 40 lowercase hex. */
  public_key: string;
  kyc_status: KycStatus;
  /** Whether the wallet supports confidential tokens. */
  confidential_ready: boolean;
  created_at: number;
  /** Issue 3: the X25519 viewing public key (the secret half is never stored here). */
  viewing_public_key?: string;
  /** Agents only: the owning personal or business account. */
  parent_account_id?: string;
  /** Agents only: a suspended agent's key cannot move funds (absent on other accounts). */
  status?: AgentStatus;
}

/** An agent transaction above its policy's HITL threshold, waiting for a human (issue 4). */
export interface HeldTransaction {
  transaction_id: string;
  agent_account_id: string;
  owner_account_id: string;
  /** Agent handle. */
  agent: string;
  /** Recipient exactly as given. */
  to: string;
  asset: string;
  confidential: boolean;
  requested_at: number;
  expires_at: number;
  status: 'pending_approval' | 'approved' | 'rejected';
  decided_at: number | null;
  /** Set when approved: the transfer it created. */
  transfer_id: string | null;
  /** Sealed under the sandbox key, never plaintext. */
  amount_sealed: string;
  memo_sealed: string | null;
  /** Amount (minor units) and memo encrypted to the OWNER's viewing key at hold time (absent without one). */
  amount_ciphertext?: string;
  memo_ciphertext?: string;
}

/** An agent's spend policy (issue 4): fields as validated by src/domain/policy.ts. */
export interface SpendPolicyRecord {
  policy_id: string;
  agent_account_id: string;
  fields: PolicyFields;
  created_at: number;
  updated_at: number;
}

export interface ApiKeyRecord {
  key_id: string;
  name: string;
  account_id: string;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  hash: string;
  /** Last four characters of the key. */
  hint: string;
  created_at: number;
  last_used_at: number | null;
  request_count: number;
  revoked_at: number | null;
}

export interface Transfer {
  transfer_id: string;
  from_account_id: string;
  /** Sender handle. */
  from: string;
  /** Recipient exactly as given in the request. */
  to: string;
  /** The recipient's sandbox account, when it is one (by handle or by its address). */
  to_account_id: string | null;
  /** The recipient's chain address, lowercase. */
  to_address: string;
  asset: string;
  confidential: boolean;
  status: TransferStatus;
  tx_hash: string;
  created_at: number;
  /** When the chain decides the transfer (created_at + block time). */
  settles_at: number;
  confirmed_at: number | null;
  failed_at: number | null;
  /** AES-256-GCM under the sandbox key, bound to the transfer id. Never plaintext. */
  amount_sealed: string;
  memo_sealed: string | null;
  /** Amount and memo encrypted to each party's viewing key, by account id (never plaintext). */
  reader_ciphertexts?: Record<string, ReaderCiphertexts>;
}

export interface IdempotencyRecord {
  scope: string;
  key: string;
  /** SHA-256 of method, path and the canonical body: the body itself is not kept. */
  request_hash: string;
  status: number;
  /** The serialized first answer (answers never carry amounts). */
  body: string;
  created_at: number;
}

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

/** How long an Idempotency-Key is remembered, on the sandbox clock. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export class State {
  readonly accounts = new Map<string, Account>();
  private readonly accountsByHandle = new Map<string, Account>();
  private readonly accountsByAddress = new Map<string, Account>();
  readonly keys = new Map<string, ApiKeyRecord>();
  private readonly keysByHash = new Map<string, ApiKeyRecord>();
  readonly transfers = new Map<string, Transfer>();
  /** Per account: its transfers (sent or received) in creation order, hence created_at order. */
  private readonly transfersByAccount = new Map<string, Transfer[]>();
  private readonly idempotency = new Map<string, IdempotencyRecord>();
  /** Agents' spend policies, by agent account id. */
  readonly policies = new Map<string, SpendPolicyRecord>();
  /** Held agent transactions (pending, approved or rejected), by transaction id. */
  readonly held = new Map<string, HeldTransaction>();
  readonly ledger: Ledger;
  private readonly listeners = new Map<SandboxEventType, Array<(e: SandboxEvent) => void>>();

  /**
   * @param onChange called after every change that must reach the state file (debounced there)
   * @param onListenerError a throwing listener never breaks the request that fired the event
   */
  constructor(
    private readonly onChange: () => void = () => {},
    private readonly onListenerError: (err: unknown) => void = () => {},
  ) {
    this.ledger = new Ledger(() => this.onChange());
    this.balanceViews = new BalanceViews((id) => this.accounts.get(id));
    this.ledger.onBalance = (accountId, asset, units) => this.balanceViews.update(accountId, asset, units);
  }
  /** Balance ciphertexts to each account's viewing key. */
  readonly balanceViews: BalanceViews;

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

  emit(event: SandboxEvent): void {
    for (const fn of this.listeners.get(event.type) ?? []) {
      try {
        fn(event);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  /** Tells the persister something changed. */
  touch(): void {
    this.onChange();
  }

  // ---- accounts -----------------------------------------------------------------------------

  addAccount(account: Account): Account {
    const handle = account.handle.toLowerCase();
    const address = account.public_key.toLowerCase();
    if (this.accountsByHandle.has(handle)) throw new Error(`handle ${account.handle} is taken`);
    if (this.accountsByAddress.has(address)) throw new Error(`address ${account.public_key} is taken`);
    this.indexAccount(account);
    this.emit({ type: 'account.created', account, at: account.created_at });
    this.touch();
    return account;
  }

  accountByHandle(handle: string): Account | undefined {
    return this.accountsByHandle.get(handle.toLowerCase());
  }

  accountByAddress(address: string): Account | undefined {
    return this.accountsByAddress.get(address.toLowerCase());
  }

  private indexAccount(account: Account): void {
    this.accounts.set(account.account_id, account);
    this.accountsByHandle.set(account.handle.toLowerCase(), account);
    this.accountsByAddress.set(account.public_key.toLowerCase(), account);
  }

  /** The agents an account owns, in creation order. */
  agentsOf(ownerId: string): Account[] {
    const out: Account[] = [];
    for (const a of this.accounts.values()) if (a.parent_account_id === ownerId) out.push(a);
    return out;
  }

  // ---- agents: policies and held transactions (logic in agents.ts) ---------------------------

  setPolicy(record: SpendPolicyRecord): SpendPolicyRecord {
    this.policies.set(record.agent_account_id, record);
    this.touch();
    return record;
  }

  addHeld(held: HeldTransaction): HeldTransaction {
    this.held.set(held.transaction_id, held);
    this.touch();
    return held;
  }

  // ---- API keys -----------------------------------------------------------------------------

  addKey(record: ApiKeyRecord): ApiKeyRecord {
    this.keys.set(record.key_id, record);
    this.keysByHash.set(record.hash, record);
    this.touch();
    return record;
  }

  keyByHash(hash: string): ApiKeyRecord | undefined {
    return this.keysByHash.get(hash);
  }

  /** Records one authenticated request on a key. */
  recordKeyUse(key: ApiKeyRecord, at: number): void {
    key.last_used_at = at;
    key.request_count++;
    this.touch();
  }

  revokeKey(key: ApiKeyRecord, at: number): ApiKeyRecord {
    if (key.revoked_at === null) {
      key.revoked_at = at;
      this.touch();
    }
    return key;
  }

  // ---- transfers ----------------------------------------------------------------------------

  addTransfer(transfer: Transfer): Transfer {
    this.indexTransfer(transfer);
    this.touch();
    return transfer;
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
   * A transfer the account may read, else undefined (whether it exists is not revealed): one it
   * sent or received, or one sent or received by an agent it owns (e.g. what an approval created).
   */
  transferFor(accountId: string, transferId: string): Transfer | undefined {
    const t = this.transfers.get(transferId);
    if (!t) return undefined;
    if (t.from_account_id === accountId || t.to_account_id === accountId) return t;
    if (this.ownerOf(t.from_account_id) === accountId) return t;
    if (t.to_account_id !== null && this.ownerOf(t.to_account_id) === accountId) return t;
    return undefined;
  }

  /** The owner's account id when the account is an agent. */
  private ownerOf(accountId: string): string | undefined {
    const a = this.accounts.get(accountId);
    return a?.type === 'agent' ? a.parent_account_id : undefined;
  }

  countTransfers(accountId: string): number {
    return this.transfersByAccount.get(accountId)?.length ?? 0;
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

  // ---- idempotency --------------------------------------------------------------------------

  idempotencyRecord(scope: string, key: string, now: number): IdempotencyRecord | undefined {
    const r = this.idempotency.get(idemKey(scope, key));
    return r && now - r.created_at < IDEMPOTENCY_TTL_MS ? r : undefined;
  }

  saveIdempotency(record: IdempotencyRecord): void {
    // Records are inserted in time order, so expired ones are at the front of the map.
    for (const [k, r] of this.idempotency) {
      if (record.created_at - r.created_at < IDEMPOTENCY_TTL_MS) break;
      this.idempotency.delete(k);
    }
    const k = idemKey(record.scope, record.key);
    this.idempotency.delete(k); // re-insert at the end to keep time order
    this.idempotency.set(k, record);
    this.touch();
  }

  // ---- whole state --------------------------------------------------------------------------

  /** Forgets everything (the caller re-seeds). */
  clear(at: number): void {
    this.accounts.clear();
    this.accountsByHandle.clear();
    this.accountsByAddress.clear();
    this.keys.clear();
    this.keysByHash.clear();
    this.transfers.clear();
    this.transfersByAccount.clear();
    this.idempotency.clear();
    this.policies.clear();
    this.held.clear();
    this.ledger.clear();
    this.balanceViews.clear();
    this.emit({ type: 'state.reset', at });
    this.touch();
  }

  /** The records a snapshot holds (balances are sealed by the caller through the ledger). */
  records(): StateRecords {
    return {
      accounts: [...this.accounts.values()],
      keys: [...this.keys.values()],
      transfers: [...this.transfers.values()],
      idempotency: [...this.idempotency.values()],
      policies: [...this.policies.values()],
      held: [...this.held.values()],
    };
  }

  /** Loads records from a snapshot into an empty state (no events are fired). */
  load(records: StateRecords): void {
    for (const a of records.accounts) this.indexAccount(a);
    for (const k of records.keys) {
      this.keys.set(k.key_id, k);
      this.keysByHash.set(k.hash, k);
    }
    const transfers = [...records.transfers];
    if (!isSortedBy(transfers, (t) => t.created_at)) transfers.sort((a, b) => a.created_at - b.created_at);
    for (const t of transfers) this.indexTransfer(t);
    const idem = [...records.idempotency].sort((a, b) => a.created_at - b.created_at);
    for (const r of idem) this.idempotency.set(idemKey(r.scope, r.key), r);
    for (const p of records.policies ?? []) this.policies.set(p.agent_account_id, p);
    for (const h of records.held ?? []) this.held.set(h.transaction_id, h);
  }
}

export interface StateRecords {
  accounts: Account[];
  keys: ApiKeyRecord[];
  transfers: Transfer[];
  idempotency: IdempotencyRecord[];
  policies?: SpendPolicyRecord[];
  held?: HeldTransaction[];
}

export type { SealedBalance };

function idemKey(scope: string, key: string): string {
  return `${scope}\u0000${key}`;
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
