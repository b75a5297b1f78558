import type { App } from '../../app.js';
import { z } from 'zod';
import { printJson, printRecord, outputMode } from '../../io/render.js';

export const DecisionSchema = z.looseObject({
  transaction_id: z.string(),
  status: z.string(),
  // null (or absent) for a rejection: no transfer was made.
  transfer_id: z.string().nullable().optional(),
});

export type Decision = 'approve' | 'reject';

/** Sends one decision; errors (404 not found, 409 expired) propagate with their exit codes. */
export async function sendDecision(app: App, id: string, decision: Decision): Promise<z.infer<typeof DecisionSchema>> {
  const client = await app.client();
  const { data } = await client.post(`/v1/agents/transactions/${encodeURIComponent(id)}/${decision}`, { body: {}, schema: DecisionSchema });
  return data;
}

export async function decide(app: App, id: string, decision: Decision): Promise<void> {
  await app.confirmLive(decision === 'approve' ? `Approve ${id} and send it from a LIVE account?` : `Reject ${id} on a LIVE account?`);
  const data = await sendDecision(app, id, decision);
  if (app.json) return printJson(app.io, data);
  app.io.err(decision === 'approve'
    ? `approved ${id}: submitted as transfer ${data.transfer_id ?? '(id not given)'}\n`
    : `rejected ${id}: discarded, no funds moved\n`);
  printRecord(app.io, outputMode(app.io, false), data, [
    { key: 'transaction_id', header: 'Transaction' },
    { key: 'status', header: 'Status' },
    { key: 'transfer_id', header: 'Transfer' },
  ]);
}
