// What the store keeps for agents beyond their accounts: each agent's spend policy, and the
// transactions its policy held for a human decision. The Store opens the transaction each change
// runs in (and fires the events of held transactions).
import { HeldRecord, SpendPolicyRecord, type Approval, type DecidedBy, type HeldTransaction } from '../records.js';
import type { Db } from './db.js';
import { readRecords, type Statements } from './statements.js';
import type { Writer } from './transactions.js';

export class Policies {
  private readonly byAgent = new Map<string, SpendPolicyRecord>();

  constructor(
    private readonly stmt: Statements,
    private readonly writer: Writer,
  ) {}

  of(agentId: string): SpendPolicyRecord | undefined {
    return this.byAgent.get(agentId);
  }

  all(): IterableIterator<SpendPolicyRecord> {
    return this.byAgent.values();
  }

  set(record: SpendPolicyRecord): void {
    this.writer.run(this.stmt.putPolicy, record.agent_account_id, JSON.stringify(record));
    this.byAgent.set(record.agent_account_id, record);
  }

  load(db: Db): void {
    this.clear();
    for (const p of readRecords(db, 'SELECT record FROM policies ORDER BY rowid', SpendPolicyRecord)) this.byAgent.set(p.agent_account_id, p);
  }

  clear(): void {
    this.byAgent.clear();
  }
}

/** An approval completes it with the transfer it made (the approval recorded with it); a rejection ends it. */
export type HeldDecision = ({ status: 'approved'; transferId: string; approval: Approval } | { status: 'rejected'; reason?: string | undefined }) & { by: DecidedBy };

export class HeldTransactions {
  private readonly byId = new Map<string, HeldTransaction>();

  constructor(
    private readonly stmt: Statements,
    private readonly writer: Writer,
  ) {}

  get(id: string): HeldTransaction | undefined {
    return this.byId.get(id);
  }

  all(): IterableIterator<HeldTransaction> {
    return this.byId.values();
  }

  hold(h: HeldTransaction): void {
    this.writer.run(this.stmt.putHeld, h.transaction_id, JSON.stringify(h));
    this.byId.set(h.transaction_id, h);
  }

  /** One approval short of its quorum (or more): kept, still pending. */
  recordApproval(h: HeldTransaction, approval: Approval): void {
    h.approvals = [...(h.approvals ?? []), approval];
    this.writer.run(this.stmt.putHeld, h.transaction_id, JSON.stringify(h));
  }

  decide(h: HeldTransaction, decision: HeldDecision, at: number): void {
    h.status = decision.status;
    h.decided_at = at;
    h.decided_by = decision.by;
    if (decision.status === 'approved') {
      h.transfer_id = decision.transferId;
      h.approvals = [...(h.approvals ?? []), decision.approval];
    } else if (decision.reason !== undefined) h.reason = decision.reason;
    this.writer.run(this.stmt.putHeld, h.transaction_id, JSON.stringify(h));
  }

  load(db: Db): void {
    this.clear();
    for (const h of readRecords(db, 'SELECT record FROM held ORDER BY rowid', HeldRecord)) this.byId.set(h.transaction_id, h);
  }

  clear(): void {
    this.byId.clear();
  }
}
