import type { App } from '../../app.js';
import { outputMode, printList } from '../../io/render.js';
import { amountOf, fetchQueue, memoOf, timeLeft } from './queue.js';

export async function listPending(app: App): Promise<void> {
  const { items, skewMs } = await fetchQueue(app);
  const mode = outputMode(app.io, app.json);
  const rows = [];
  for (const tx of items) {
    const row: Record<string, unknown> = { ...tx };
    if (mode !== 'json') {
      row.amount = await amountOf(app, tx);
      row.memo = (await memoOf(app, tx)) ?? '';
      row.time_left = timeLeft(tx.expires_at, skewMs);
    }
    rows.push(row);
  }
  printList(app.io, mode, rows, [
    { key: 'transaction_id', header: 'ID' },
    { key: 'agent', header: 'AGENT' },
    { key: 'to', header: 'TO' },
    { key: 'amount', header: 'AMOUNT' },
    { key: 'memo', header: 'MEMO' },
    { key: 'requested_at', header: 'REQUESTED' },
    { key: 'expires_at', header: 'EXPIRES' },
    { key: 'time_left', header: 'TIME LEFT' },
  ], 'No transactions are waiting for approval.');
}
