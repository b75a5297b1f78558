// Accounts in memory, found by id, by handle and by chain address (handles and addresses without
// regard to case), and their rows. Agents are accounts with a parent. The Store opens the
// transaction each change runs in.
import { AccountRecord, type Account, type AgentStatus } from '../records.js';
import type { Db } from './db.js';
import { readRecords, type Statements } from './statements.js';
import type { Writer } from './transactions.js';

export class AccountIndex {
  private readonly byId = new Map<string, Account>();
  private readonly byHandle = new Map<string, Account>();
  private readonly byAddress = new Map<string, Account>();

  constructor(
    private readonly stmt: Statements,
    private readonly writer: Writer,
  ) {}

  get(id: string): Account | undefined {
    return this.byId.get(id);
  }

  withHandle(handle: string): Account | undefined {
    return this.byHandle.get(handle.toLowerCase());
  }

  withAddress(address: string): Account | undefined {
    return this.byAddress.get(address.toLowerCase());
  }

  all(): IterableIterator<Account> {
    return this.byId.values();
  }

  /** The agents an account owns, in creation order. */
  agentsOf(ownerId: string): Account[] {
    const out: Account[] = [];
    for (const a of this.byId.values()) if (a.parent_account_id === ownerId) out.push(a);
    return out;
  }

  /** Throws when another account has the handle or the address. */
  checkFree(account: Account): void {
    if (this.byHandle.has(account.handle.toLowerCase())) throw new Error(`handle ${account.handle} is taken`);
    if (this.byAddress.has(account.public_key.toLowerCase())) throw new Error(`address ${account.public_key} is taken`);
  }

  add(account: Account): void {
    this.writer.run(this.stmt.putAccount, account.account_id, JSON.stringify(account));
    this.index(account);
  }

  setStatus(agent: Account, status: AgentStatus): void {
    agent.status = status;
    this.writer.run(this.stmt.putAccount, agent.account_id, JSON.stringify(agent));
  }

  load(db: Db): void {
    this.clear();
    for (const a of readRecords(db, 'SELECT record FROM accounts ORDER BY rowid', AccountRecord)) {
      if (a.type === 'agent' && !a.status) a.status = 'active'; // saved before agents could be suspended
      this.index(a);
    }
  }

  clear(): void {
    this.byId.clear();
    this.byHandle.clear();
    this.byAddress.clear();
  }

  private index(a: Account): void {
    this.byId.set(a.account_id, a);
    this.byHandle.set(a.handle.toLowerCase(), a);
    this.byAddress.set(a.public_key.toLowerCase(), a);
  }
}
