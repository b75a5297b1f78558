// The objects behind a sample event (`svc sandbox trigger <event>`, POST /_sandbox/trigger). A
// sample names objects that exist, made here by the operations a request uses, so every command
// it suggests works: `svc pending approve txn_…` approves a held transaction, `svc transfer get
// tr_…` reads a transfer. The sample is the one event a trigger sends: the operations run with
// the webhook engine quiet (their own events are not sent), and the sample is published after.
// A sample moves none of the account's own money: what it spends is credited first (a faucet
// top-up), and handed back when nothing was spent. It skips what a request would be refused for
// (KYC, a suspended agent, the agent's policy): it is the admin's sample, not the account's act.
import type { EventType } from '../domain/events.js';
import { validatePolicyFields } from '../domain/policy.js';
import { createAgent, decide, holdTransaction, policyOf } from './agents.js';
import { DEAD_ADDRESS } from './external-wallets.js';
import type { Account, Approver } from './records.js';
import type { SandboxEvent } from './store/events.js';
import type { World } from './world.js';

/** 0.01 USDG: what a sample transfer or held transaction is for. */
const ASSET = 'USDG';
const UNITS = 10_000n;
/** An external wallet that settles, and the one that never does (external-wallets.ts). */
const SETTLES_TO = '0x1111111111111111111111111111111111111111';
const FAILS_TO = DEAD_ADDRESS;
/** The agent an owner's samples use, made on first use: every transfer it tries waits for approval. */
export const SAMPLE_AGENT = 'sample-agent';
const SAMPLE_POLICY = { hitl_threshold_usdc: 0 };
/** Who decides a sample's held transaction (its `decided_by`). */
const DECIDER = 'sandbox trigger';

/** The ids a sample names, as the trigger's answer gives them. */
export interface SampleRefs {
  transfer_id?: string;
  transaction_id?: string;
  agent?: string;
  policy_id?: string;
}

/** Makes the objects of a sample of `type` for `account`; the event to send, and what it names. */
export function makeSample(world: World, type: EventType, account: Account): { event: SandboxEvent; refs: SampleRefs } {
  const at = world.now();
  return world.webhooks.quietly(() => {
    switch (type) {
      case 'transfer.initiated':
      case 'transfer.confirmed':
      case 'transfer.failed': {
        const transfer = sampleTransfer(world, account, type);
        return { event: { type, transfer, at }, refs: { transfer_id: transfer.transfer_id } };
      }
      case 'agent.transaction.pending_approval':
      case 'agent.transaction.approved':
      case 'agent.transaction.rejected': {
        const agent = agentFor(world, account);
        const held = sampleHeld(world, agent, type);
        return {
          event: { type, held, at },
          refs: { transaction_id: held.transaction_id, agent: agent.handle, ...(held.transfer_id ? { transfer_id: held.transfer_id } : {}) },
        };
      }
      case 'agent.policy.updated': {
        const agent = agentFor(world, account);
        const { policy_id } = policyOf(world, agent);
        return { event: { type, agent, policy_id, at }, refs: { agent: agent.handle, policy_id } };
      }
    }
  });
}

/** Credits what a sample spends; whether it was credited (not when it would pass the maximum balance). */
function topUp(world: World, account: Account): boolean {
  return world.store.credit(account.account_id, ASSET, UNITS);
}

/** A transfer from the account to an external wallet: left pending, or settled now (confirmed, or failed and refunded). */
function sampleTransfer(world: World, from: Account, type: 'transfer.initiated' | 'transfer.confirmed' | 'transfer.failed') {
  const to = type === 'transfer.failed' ? FAILS_TO : SETTLES_TO;
  const toppedUp = topUp(world, from);
  const transfer = world.chain.submit({ from, to, toAccount: undefined, toAddress: to, asset: ASSET, units: UNITS, confidential: true, memo: undefined, now: world.now() });
  if (!transfer) throw new Error(`a sample transfer of ${from.handle} could not reserve its funds`);
  if (type !== 'transfer.initiated') world.chain.decide(transfer.transfer_id, world.now());
  // A failed transfer was refunded: the top-up goes back.
  if (type === 'transfer.failed' && toppedUp) world.store.debit(from.account_id, ASSET, UNITS);
  return transfer;
}

/** A held transaction of the agent, left pending (funded, so approving it works), approved or rejected. */
function sampleHeld(world: World, agent: Account, type: 'agent.transaction.pending_approval' | 'agent.transaction.approved' | 'agent.transaction.rejected') {
  const owner = world.store.account(agent.parent_account_id ?? '');
  if (!owner) throw new Error(`agent ${agent.account_id} has no owner`);
  const toppedUp = topUp(world, agent);
  const held = holdTransaction(world, agent, { to: SETTLES_TO, asset: ASSET, units: UNITS, confidential: true, memo: undefined });
  if (type === 'agent.transaction.pending_approval') return held;
  // No API key decides a sample: an approver of its own (the sample agent's policy needs one approval).
  const by: Approver = { key_id: DECIDER, key_name: DECIDER, account: owner.handle };
  const decided = decide(world, owner, held.transaction_id, type === 'agent.transaction.approved' ? 'approve' : 'reject', by).held;
  if (type === 'agent.transaction.rejected' && toppedUp) world.store.debit(agent.account_id, ASSET, UNITS);
  return decided;
}

/** The account itself when it is an agent, else its sample agent (made on first use). */
function agentFor(world: World, account: Account): Account {
  if (account.type === 'agent') return account;
  const existing = world.store.accountByHandle(`${account.handle}/${SAMPLE_AGENT}`);
  if (existing) return existing;
  const policy = validatePolicyFields(SAMPLE_POLICY, 'create');
  if (!policy.ok) throw new Error(`the sample policy is invalid: ${policy.message}`);
  return createAgent(world, account, SAMPLE_AGENT, policy.fields).agent;
}
