// The words and the pace of a wait's progress (wait-progress.ts): "awaiting approval, expires in
// 12m" on the service's clock, with a quorum's count and never a key's name or an amount; a
// notification at once, then one each PROGRESS_EVERY_MS of the injected clock, progress strictly
// increasing; a task's status message only when the words change.
import { describe, expect, it } from 'vitest';
import type { HeldResource } from '../../../src/api/schemas.js';
import { awaitingText, PROGRESS_EVERY_MS, progressReporter, type Progress } from '../../../src/commands/mcp/wait-progress.js';
import { virtualClock } from '../../helpers/cli.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const held = (extra: object = {}) => ({ transaction_id: 'txn_x', status: 'pending_approval', expires_at: '2026-01-01T00:12:00Z', amount_ciphertext: 'ct', ...extra }) as unknown as HeldResource;

describe('awaitingText', () => {
  it('says the time left on the service\'s clock, and a quorum\'s count without whose key', () => {
    const serviceClock = { now: () => NOW + 400 };
    expect(awaitingText({ serviceClock } as never, held())).toBe('awaiting approval, expires in 12m');
    const q = held({ approvals_required: 2, approvals: [{ key_name: 'ops2', account: '@alice', at: '2026-01-01T00:00:00Z' }] });
    expect(awaitingText({ serviceClock } as never, q)).toBe('awaiting approval, expires in 12m, 1 of 2 approvals');
    expect(awaitingText({ serviceClock: { now: () => NOW + 11 * 60_000 + 15_000 } } as never, held())).toBe('awaiting approval, expires in 45s');
    expect(awaitingText({ serviceClock: { now: () => NOW + 13 * 60_000 } } as never, held())).toBe('awaiting approval, expires now');
  });
});

describe('progressReporter', () => {
  it('notifies at once, then each 5 s of the clock (not each round), progress increasing; the status only on a change', async () => {
    const clock = virtualClock(NOW);
    const sent: Progress[] = [];
    const statuses: string[] = [];
    const report = progressReporter({ clock, serviceClock: { now: () => clock.now() } } as never, {
      notify: async (p) => void sent.push(p), status: async (m) => void statuses.push(m), totalSeconds: 45,
    });
    for (let i = 0; i < 20; i++) {
      await report(held());
      await clock.sleep(1_000);
    }
    expect(sent.map((p) => p.progress)).toEqual([0, 5, 10, 15]);
    expect(sent.every((p) => p.total === 45 && p.message === 'awaiting approval, expires in 12m')).toBe(true);
    expect(PROGRESS_EVERY_MS).toBe(5_000);
    expect(statuses).toEqual(['awaiting approval, expires in 12m']);
  });
});
