// What the store announces when the world changes, and who listens: the webhook engine turns
// these into webhook events. Listeners run inside the transaction of the change (see emit).
import type { Account, HeldTransaction, Transfer } from '../records.js';

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
export type Listener<T extends SandboxEventType> = (event: Extract<SandboxEvent, { type: T }>) => void;

export class EventBus {
  private readonly listeners = new Map<SandboxEventType, Array<(e: SandboxEvent) => void>>();

  /** Adds a listener; the function returned removes it. */
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
}
