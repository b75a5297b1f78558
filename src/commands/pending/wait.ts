// `svc pending wait <id> [--timeout-wait D]`: blocks until a human decides a held transaction,
// with the owner's key or the agent's own (docs/agents.md "Waiting for a human from a script").
// Exit 0 approved (the resource on stdout, its transfer id among it), 6 rejected
// (`transaction_rejected`), 5 expired (`transaction_expired`), 7 out of time (`wait_timeout`).
import type { Needs } from '../../runtime/factory.js';
import { parseWaitDuration } from '../../runtime/flags.js';
import { waitForDecision } from './follow.js';
import { printHeld } from './get.js';
import { checkTransactionId } from '../../core/held.js';
import { approvedLine } from './elsewhere.js';

export interface WaitOptions {
  timeoutWait?: string;
  decrypt?: boolean;
}

export async function waitHeld(ctx: Needs<'auth' | 'client' | 'clock' | 'env' | 'interrupt' | 'io' | 'json' | 'network' | 'reader' | 'serviceClock'>, idText: string, opts: WaitOptions = {}): Promise<void> {
  const id = checkTransactionId(idText);
  // Without --timeout-wait it waits for the decision or the end of the window (at most 24 h).
  const timeoutMs = opts.timeoutWait !== undefined ? parseWaitDuration(opts.timeoutWait) : undefined;
  const client = await ctx.client();
  const held = await waitForDecision(ctx, client, id, timeoutMs !== undefined ? { timeoutMs } : {});
  if (!ctx.json) ctx.io.err(`${approvedLine(id, held)}\n`);
  await printHeld(ctx, held, opts);
}
