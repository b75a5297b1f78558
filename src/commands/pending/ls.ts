// `svc pending ls`: the approval queue, soonest to expire first.
import type { App } from '../../app.js';
import { outputMode, printList } from '../../io/render.js';
import { fetchQueue, openHeld, shownAmount, shownMemo, timeLeft } from './queue.js';

export async function listPending(app: App, opts: { decrypt?: boolean } = {}): Promise<void> {
  const { items, skewMs } = await fetchQueue(app);
  const mode = outputMode(app.io, app.json);
  const rows: Record<string, unknown>[] = [];
  for (const tx of items) {
    if (mode === 'json') {
      // The service's objects; --decrypt adds amount and memo where they open here (docs/json.md).
      const opened = opts.decrypt ? await openHeld(app, tx) : undefined;
      rows.push({ ...tx, ...(opened?.amount !== undefined ? { amount: opened.amount } : {}), ...(opened?.memo !== undefined ? { memo: opened.memo } : {}) });
      continue;
    }
    const opened = await openHeld(app, tx);
    rows.push({ ...tx, amount: shownAmount(tx, opened), memo: shownMemo(opened) ?? '', time_left: timeLeft(tx.expires_at, skewMs, app.clock.now()) });
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
