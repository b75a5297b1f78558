// The retry policy on its own (src/api/retry.ts): which outcomes of which requests are tried
// again, and after how long (what the tries did at the service: delivery.test.ts). No network:
// outcomes are made up.
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/api/attempt.js';
import { NetworkBudget } from '../../src/api/budget.js';
import { isRepeatable, MAX_TRIES, pause, RetryPolicy } from '../../src/api/retry.js';

const timing = { baseMs: 200, maxMs: 5_000, random: () => 1 };
const NOW = Date.parse('2030-01-01T00:00:00Z');
const policy = (repeatable = true) => new RetryPolicy(repeatable, timing, () => NOW);

const answer = (status: number, headers: Record<string, string> = {}): Outcome => ({ kind: 'answer', status, headers, text: '', ms: 1 });
const reset: Outcome = { kind: 'failed', failure: { code: 'ECONNRESET', words: 'connection reset', refused: false, timedOut: false }, ms: 1 };

describe('RetryPolicy', () => {
  it('repeats only GETs and keyed POSTs', () => {
    expect(isRepeatable('GET', undefined)).toBe(true);
    expect(isRepeatable('POST', 'k')).toBe(true);
    for (const m of ['PATCH', 'DELETE', 'PUT'] as const) expect(isRepeatable(m, 'k')).toBe(false);
    const p = policy(false);
    expect(p.pauseAfter(answer(503), 30_000)).toBeUndefined();
  });

  it('retries network failures, 429 and 5xx, with growing pauses, at most 3 tries', () => {
    for (const outcome of [reset, answer(429), answer(500), answer(503)]) {
      const p = policy();
      expect([p.pauseAfter(outcome, 30_000), p.pauseAfter(outcome, 30_000), p.pauseAfter(outcome, 30_000)]).toEqual([200, 400, undefined]);
    }
    expect(MAX_TRIES).toBe(3);
  });

  it('never retries a success, a 4xx, the time limit, an interruption or an answer too large', () => {
    for (const outcome of [answer(200), answer(404), answer(301), { kind: 'timeout', ms: 1 }, { kind: 'interrupted', ms: 1 }, { kind: 'too_large', ms: 1 }] as Outcome[]) {
      expect(policy().pauseAfter(outcome, 30_000), outcome.kind).toBeUndefined();
    }
  });

  it('reads Retry-After as seconds, or as a date against the injected clock', () => {
    expect(policy().pauseAfter(answer(429, { 'retry-after': '3' }), 30_000)).toBe(3_000);
    const at = new Date(NOW + 7_000).toUTCString();
    expect(policy().pauseAfter(answer(503, { 'retry-after': at }), 30_000)).toBe(7_000);
  });

  it('does not start a pause after an answer that would outlast the budget', () => {
    expect(policy().pauseAfter(answer(429, { 'retry-after': '5' }), 4_000)).toBeUndefined();
  });

});

describe('pause', () => {
  it('counts the pause against the budget, never longer than what is left', async () => {
    const budget = new NetworkBudget(1_000);
    const slept: number[] = [];
    await pause(budget, async (ms) => void slept.push(ms), 400);
    await pause(budget, async (ms) => void slept.push(ms), 900);
    expect(slept).toEqual([400, 600]);
    expect(budget.remainingMs).toBe(0);
  });

  it('ends early when the caller aborts', async () => {
    const ctl = new AbortController();
    const never = () => new Promise<void>(() => {});
    const p = pause(new NetworkBudget(1_000), never, 500, ctl.signal);
    ctl.abort(new Error('ctrl-c'));
    await expect(p).rejects.toThrow('ctrl-c');
  });
});
