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

describe('decided elsewhere, and a key meant for the one before', () => {
  const base = { message: 'Held transaction 1 of 1: txn_1', details: ['approvals    0 of 2 so far'], expiresAtMs: START + 10 * 60_000, now: () => START };

  it('told it was decided elsewhere (live().ended, a redraw asked for), it closes by itself with those words: `elsewhere`, nothing decided', async () => {
    const term = terminal();
    let ended: string | undefined;
    let redraw = () => {};
    const answer = reviewPrompt({
      ...base,
      live: () => ({ message: base.message, details: base.details, ...(ended ? { ended } : {}) }),
      subscribe: (f) => ((redraw = f), () => {}),
    }, { input: term.input, output: term.output });
    await vi.waitFor(() => expect(term.screen()).toContain('[a] approve'));
    ended = 'approved elsewhere by key "ops3" of @alice';
    redraw(); // at once: no tick needed
    expect(await answer).toBe('elsewhere');
    expect(term.screen()).toContain('Held transaction 1 of 1: txn_1 approved elsewhere by key "ops3" of @alice');
  });

  it('a key pressed once it is decided elsewhere, before any redraw, decides nothing: `elsewhere`', async () => {
    const term = terminal();
    let ended: string | undefined;
    const answer = reviewPrompt({ ...base, live: () => ({ message: base.message, details: base.details, ...(ended ? { ended } : {}) }) }, { input: term.input, output: term.output });
    await vi.waitFor(() => expect(term.screen()).toContain('[a] approve'));
    ended = 'rejected elsewhere by key "ops2" of @alice';
    term.input.write('a');
    expect(await answer).toBe('elsewhere');
  });

  it('holdKeysMs: a and r do nothing at first (s and q work), then a approves', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    const term = terminal();
    let settled: string | undefined;
    const answer = reviewPrompt({ ...base, holdKeysMs: 1_000 }, { input: term.input, output: term.output });
    void answer.then((a) => (settled = a));
    await vi.advanceTimersByTimeAsync(0);
    expect(term.screen()).toContain('[q] quit\n  (a and r in a moment: the screen just moved on by itself)');
    term.input.write('a');
    term.input.write('r');
    await vi.advanceTimersByTimeAsync(500);
    expect(settled).toBeUndefined();
    term.clear();
    await vi.advanceTimersByTimeAsync(600); // the hold is over: drawn without the note
    const last = term.screen().split('? Held transaction').at(-1)!; // the latest drawing
    expect(last).toContain('[a] approve');
    expect(last).not.toContain('in a moment');
    term.input.write('a');
    expect(await answer).toBe('approve');
  });
});
