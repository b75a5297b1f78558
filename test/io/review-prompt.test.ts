// The review prompt redraws itself every second from the clock it is given: the time left, and
// (config.live) the question and the detail lines, so "requested 3m ago" and "1 of 3" move while
// it waits for a key. Driven in-process: a virtual clock for `now`, the one-second tick fired by
// fake interval timers (nothing waits for real time), keys typed into a fake terminal.
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reviewPrompt } from '../../src/io/review-prompt.js';
import { relativeTime } from '../../src/io/time.js';

const START = Date.parse('2030-06-01T12:00:00Z');

function terminal() {
  const input = new PassThrough() as PassThrough & { isTTY: boolean; setRawMode: (on: boolean) => void };
  input.isTTY = true;
  input.setRawMode = () => {};
  const output = new PassThrough() as PassThrough & { isTTY: boolean; columns: number; rows: number };
  output.isTTY = true;
  output.columns = 80;
  output.rows = 40;
  let written = '';
  output.on('data', (d: Buffer) => (written += d.toString('utf8')));
  // eslint-disable-next-line no-control-regex
  const screen = () => written.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
  return { input, output, screen, clear: () => (written = '') };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the review prompt ticks', () => {
  it('each second it redraws from the clock: time left, the time since the request, the live question and status', async () => {
    let now = START;
    let total = 1;
    const requestedAt = new Date(START - 5_000).toISOString();
    const term = terminal();
    const answer = reviewPrompt({
      message: 'Held transaction 1 of 1: txn_1',
      details: [`requested    ${relativeTime(requestedAt, now)}`],
      expiresAtMs: START + 10 * 60_000,
      now: () => now,
      live: () => ({
        message: `Held transaction 1 of ${total}: txn_1`,
        details: [`requested    ${relativeTime(requestedAt, now)}`],
        ...(total > 2 ? { status: 'reconnecting… no answer (network_error); 1 try, next in 1s' } : {}),
      }),
    }, { input: term.input, output: term.output });
    await vi.waitFor(() => expect(term.screen()).toContain('time left    10m'));
    expect(term.screen()).toContain('requested    5s ago');

    term.clear();
    now += 61_000; // the clock moves; the tick redraws
    total = 2;
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() => expect(term.screen()).toContain('Held transaction 1 of 2: txn_1'));
    expect(term.screen()).toContain('requested    1m ago');
    expect(term.screen()).toContain('time left    8m59s');

    term.clear();
    total = 3;
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() => expect(term.screen()).toContain('  reconnecting… no answer (network_error); 1 try, next in 1s'));

    term.input.write('q');
    expect(await answer).toBe('quit');
    expect(term.screen()).toContain('Held transaction 1 of 3: txn_1 quit');
  });
});
