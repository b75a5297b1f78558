import type { App } from '../../app.js';
import * as z from 'zod/mini';
import { printJson, printRecord, outputMode } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';

export const DecisionSchema = z.looseObject({
  transaction_id: z.string(),
  status: z.string(),
  // null (or absent) for a rejection: no transfer was made.
  transfer_id: z.optional(z.nullable(z.string())),
});

export type Decision = 'approve' | 'reject';

/** Sends one decision; errors (404 not found, 409 expired) propagate with their exit codes. */
export async function sendDecision(app: App, id: string, decision: Decision): Promise<z.infer<typeof DecisionSchema>> {
  const client = await app.client();
  const { data } = await client.post(`/v1/agents/transactions/${encodeURIComponent(id)}/${decision}`, { body: {}, schema: DecisionSchema });
  return data;
}

export async function decide(app: App, id: string, decision: Decision): Promise<void> {
  const shownId = sanitize(id);
  await app.confirmLive(decision === 'approve' ? `Approve ${shownId} and send it from a LIVE account?` : `Reject ${shownId} on a LIVE account?`);
  const data = await sendDecision(app, id, decision);
  if (app.json) return printJson(app.io, data);
  app.io.err(decision === 'approve'
    ? `approved ${shownId}: submitted as transfer ${sanitize(data.transfer_id ?? '(id not given)')}\n`
    : `rejected ${shownId}: discarded, no funds moved\n`);
  printRecord(app.io, outputMode(app.io, false), data, [
    { key: 'transaction_id', header: 'Transaction' },
    { key: 'status', header: 'Status' },
    { key: 'transfer_id', header: 'Transfer' },
  ]);
}
