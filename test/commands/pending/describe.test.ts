// The one description of a held transaction (src/commands/pending/queue.ts) and review's
// --interval: pure formatting, checked without a service.
import { describe, expect, it } from 'vitest';
import { heldDetails, heldSummary, heldTimeLeft, type HeldView } from '../../../src/commands/pending/queue.js';
import { INTERVAL_BOUNDS } from '../../../src/commands/pending/review.js';
import { parseDurationFlag } from '../../../src/runtime/flags.js';

const NOW = Date.parse('2026-03-02T12:00:00.000Z');
const view = (over: Partial<HeldView> = {}): HeldView => ({
  id: 'txn_1', agent: '@alice/bot', to: '@acme', amount: '60.00 USDG', memo: 'invoice 60',
  rule: 'above the approval threshold (hitl_threshold_usdc 50)',
  requestedAt: '2026-03-02T11:57:00.000Z', expiresAt: '2026-03-02T12:12:00.000Z', expiresAtMs: Date.parse('2026-03-02T12:12:00.000Z'),
  ...over,
});

describe('describing a held transaction', () => {
  it('details: agent, to, amount, memo, the rule, requested (relative) and the time left', () => {
    expect(heldDetails(view(), NOW)).toEqual([
      'agent        @alice/bot',
      'to           @acme',
      'amount       60.00 USDG',
      'memo         invoice 60',
      'held         above the approval threshold (hitl_threshold_usdc 50)',
      'requested    3m ago',
      'time left    12m',
    ]);
    expect(heldDetails(view({ memo: undefined, rule: undefined }), NOW + 5_000, { timeLeft: false })).toEqual([
      'agent        @alice/bot',
      'to           @acme',
      'amount       60.00 USDG',
      'requested    3m ago',
    ]);
  });

  it('summary: the amount, or "an encrypted amount"', () => {
    expect(heldSummary(view())).toBe('60.00 USDG from @alice/bot to @acme');
    expect(heldSummary(view({ amount: 'encrypted' }))).toBe('an encrypted amount from @alice/bot to @acme');
  });

  it('time left counts down to expired, by the clock given', () => {
    expect(heldTimeLeft(view(), NOW + 11 * 60_000 + 8_000)).toBe('52s');
    expect(heldTimeLeft(view(), NOW + 12 * 60_000 - 1)).toBe('0s');
    expect(heldTimeLeft(view(), NOW + 12 * 60_000)).toBe('expired');
    expect(heldTimeLeft(view({ expiresAt: 'soon\u001b[2J', expiresAtMs: Number.NaN }), NOW)).toBe('soon\\x1b[2J');
  });

  it('every string from the service is sanitised', () => {
    const evil = view({ agent: '@a/b\u001b]0;pwned\u0007', to: '@c\u202e', memo: 'x\ny', amount: 'encrypted' });
    const text = [...heldDetails(evil, NOW), heldSummary(evil)].join('\n');
    // eslint-disable-next-line no-control-regex
    expect(text.split('\n').join('')).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(text).toContain('@a/b\\x1b]0;pwned\\x07');
    expect(text).toContain('memo         x\\ny');
  });
});

describe('review --interval', () => {
  const parseInterval = (text: string) => parseDurationFlag('--interval', text, INTERVAL_BOUNDS);
  it('a duration, or a bare number of seconds (at least 200ms)', () => {
    expect(parseInterval('2s')).toBe(2_000);
    expect(parseInterval('500ms')).toBe(500);
    expect(parseInterval('1m30s')).toBe(90_000);
    expect(parseInterval('2')).toBe(2_000);
    expect(parseInterval(' 0.2 ')).toBe(200);
    for (const bad of ['', 'abc', '0.1', '199ms', '1.5s', '-2s', '2 s']) {
      expect(() => parseInterval(bad), bad).toThrow(/^--interval .* must be a duration like 500ms, .* \(a bare number is seconds\), at least 200ms and at most 1d$/);
    }
  });
});
