// What a request did at the service, over all its tries (src/api/delivery.ts), for every way a
// try can end: the one place the tool decides "nothing was made", "refused" or "unknown".
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/api/attempt.js';
import { DeliveryTracker } from '../../src/api/delivery.js';

const answer = (status: number): Outcome => ({ kind: 'answer', status, headers: {}, text: '', ms: 1 });
const refused: Outcome = { kind: 'failed', failure: { code: 'ECONNREFUSED', words: 'connection refused', refused: true, timedOut: false }, ms: 1 };
const reset: Outcome = { kind: 'failed', failure: { code: 'ECONNRESET', words: 'connection reset', refused: false, timedOut: false }, ms: 1 };
const timeout: Outcome = { kind: 'timeout', ms: 1 };
const interrupted: Outcome = { kind: 'interrupted', ms: 1 };
const tooLarge: Outcome = { kind: 'too_large', ms: 1 };

/** The state after a run of tries, the last one deciding. */
function after(tries: Outcome[], reachedBefore = false): string {
  const t = new DeliveryTracker(reachedBefore);
  let state = '';
  for (const o of tries) state = t.after(o);
  return state;
}

describe('one try', () => {
  it.each([
    ['a 2xx', answer(201), 'accepted'],
    ['a 4xx', answer(402), 'refused'],
    ['a 409', answer(409), 'refused'],
    ['a 408', answer(408), 'refused'],
    ['a 429', answer(429), 'refused'],
    ['a 3xx (a redirect, never followed)', answer(307), 'refused'],
    ['a 5xx (the work may have been done before it failed)', answer(500), 'unknown'],
    ['refused at connect (it never left)', refused, 'not_sent'],
    ['a reset after sending', reset, 'unknown'],
    ['no answer in time', timeout, 'unknown'],
    ['Ctrl-C mid-request', interrupted, 'unknown'],
    ['an answer too large to read', tooLarge, 'unknown'],
  ])('%s → %s', (_what, outcome, state) => {
    expect(after([outcome])).toBe(state);
  });
});

describe('over the tries of one request', () => {
  it('a lost answer, then a refusal: unknown, whatever the refusal (429, 408, 409, 4xx)', () => {
    for (const status of [429, 408, 409, 400, 401, 402, 403, 404, 422]) {
      expect(after([reset, answer(status)]), String(status)).toBe('unknown');
      expect(after([timeout, answer(429), answer(status)]), String(status)).toBe('unknown');
      expect(after([answer(503), answer(status)]), String(status)).toBe('unknown');
    }
  });

  it('refusals before any try may have reached the service stay refusals; a lost try after them makes it unknown', () => {
    expect(after([answer(429), answer(429), answer(429)])).toBe('refused');
    expect(after([answer(429), reset])).toBe('unknown');
    expect(after([answer(429), answer(429), refused])).toBe('not_sent');
  });

  it('refused at connect on every try: not sent; once a try may have arrived, a later refused connection is unknown', () => {
    expect(after([refused, refused, refused])).toBe('not_sent');
    expect(after([reset, refused])).toBe('unknown');
  });

  it('an answer accepted after a lost one: accepted (the service answered for the key)', () => {
    expect(after([reset, answer(201)])).toBe('accepted');
    expect(after([answer(429), timeout, answer(200)])).toBe('accepted');
  });

  it('stopped between tries (Ctrl-C in a pause, the budget spent): what the tries so far did', () => {
    const none = new DeliveryTracker();
    expect(none.stopped()).toBe('not_sent');
    none.after(answer(429));
    expect(none.stopped()).toBe('refused');
    none.after(reset);
    expect(none.stopped()).toBe('unknown');
  });

  it('a 2xx whose body cannot be read: unknown (what it made is not known)', () => {
    const t = new DeliveryTracker();
    expect(t.after(answer(201))).toBe('accepted');
    expect(t.unreadable()).toBe('unknown');
  });
});

describe('over runs: an earlier run may have reached the service (reachedBefore)', () => {
  it('a refusal now leaves the outcome unknown; an acceptance is an acceptance; a refused connection says nothing new', () => {
    expect(after([answer(429)], true)).toBe('unknown');
    expect(after([answer(402)], true)).toBe('unknown');
    expect(after([answer(201)], true)).toBe('accepted');
    expect(after([refused], true)).toBe('unknown');
  });
});
