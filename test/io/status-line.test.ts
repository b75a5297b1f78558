// The one writer of status lines (docs/ux.md, Status lines): cut to the width of stderr's terminal
// by display width, the id kept whole while it fits; redrawn in place and on a resize; other
// output steps over it; without a terminal, a line per change and nothing animated.
// In a real terminal: test/io/status-lines-tty.test.ts.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { progressLine, startProgress } from '../../src/io/progress.js';
import { startSpinner } from '../../src/io/spinner.js';
import { fitStatus } from '../../src/io/status-fit.js';
import { statusLine } from '../../src/io/status-line.js';
import { createStreams } from '../../src/io/streams.js';
import { textWidth } from '../../src/io/table.js';

const ID = 'txn_5cDq8Rk2ZpW7xYt3LmN9vB4s'; // txn_ + 24, as the service makes them
const WAIT = `waiting for a human to approve ${ID}: pending_approval, 4s`;
const CLEAR = '\r\u001b[2K';

describe('fitStatus', () => {
  it('leaves a line that fits alone', () => {
    expect(fitStatus(WAIT, 200)).toBe(WAIT);
    expect(fitStatus(WAIT, textWidth(WAIT))).toBe(WAIT);
  });

  it('gives room from the words before the id first, whole words then `…`; the id and the state stay', () => {
    expect(fitStatus(WAIT, 77)).toBe(`waiting for a human to… ${ID}: pending_approval, 4s`);
    expect(fitStatus(WAIT, 60)).toBe(`waiting… ${ID}: pending_approval, 4s`);
  });

  it('then the words after it, cut at the end; the id stays whole while it fits', () => {
    expect(fitStatus(WAIT, 37)).toBe(`${ID}: pendin…`);
    expect(fitStatus(WAIT, 28)).toBe(ID);
    // Narrower than the id itself: nothing else can give room, the line is cut.
    expect(fitStatus(WAIT, 20)).toBe('txn_5cDq8Rk2ZpW7xYt…');
  });

  it('a status word such as pending_approval is a word, not an id', () => {
    expect(fitStatus('reconnecting… pending_approval network_error; 3 tries, next in 4s', 30)).toBe('reconnecting… pending_approva…');
  });

  it('measures display width: wide characters count two columns, and are not split', () => {
    const wide = `等待人工批准 ${ID}: 待批准中的交易`;
    for (const width of [30, 40, 50]) {
      const out = fitStatus(wide, width);
      expect(textWidth(out), out).toBeLessThanOrEqual(width);
      expect(out).toContain(ID);
    }
    expect(fitStatus('批准批准批准批准', 7)).toBe('批准批…');
  });
});

/** Streams as a terminal of `columns` columns (changed by resize()), recording what is written. */
function terminal(columns: number, opts: { stdoutTTY?: boolean; tty?: boolean } = {}) {
  let written = '';
  const stderr = Object.assign(new PassThrough(), { columns });
  stderr.on('data', (d: Buffer) => void (written += d.toString('utf8')));
  const stdout = new PassThrough().on('data', (d: Buffer) => void (written += d.toString('utf8')));
  const tty = opts.tty ?? true;
  const io = createStreams({ stdin: new PassThrough(), stdout, stderr, env: {}, tty: { stderr: tty, stdout: opts.stdoutTTY ?? false } });
  return {
    io,
    stderr,
    written: () => written,
    take: () => {
      const w = written;
      written = '';
      return w;
    },
    resize(to: number) {
      stderr.columns = to;
      stderr.emit('resize');
    },
  };
}

describe('statusLine on a terminal', () => {
  it('is drawn in place within the width (the last column free), and drawn again at a new width on a resize', () => {
    const t = terminal(80);
    const line = statusLine(t.io);
    line.show(WAIT);
    expect(t.take()).toBe(`${CLEAR}waiting for a human to… ${ID}: pending_approval, 4s`);
    t.resize(40);
    expect(t.take()).toBe(`${CLEAR}${ID}: pending_…`);
    line.show(WAIT); // the same text: nothing to draw
    expect(t.take()).toBe('');
    line.clear();
    expect(t.take()).toBe(CLEAR);
    expect(t.stderr.listenerCount('resize')).toBe(0);
    t.resize(80);
    expect(t.take()).toBe('');
  });

  it('a prefix (a spinner frame) is never cut and counts in the width', () => {
    const t = terminal(40);
    statusLine(t.io).show(WAIT, '⠇ ');
    const drawn = t.take();
    expect(drawn).toBe(`${CLEAR}⠇ ${ID}: pendin…`);
    expect(textWidth(drawn.slice(CLEAR.length))).toBe(39);
  });

  it('sanitises what it shows', () => {
    const t = terminal(80);
    statusLine(t.io).show('reconnecting… \u001b[2J\u202e');
    expect(t.take()).toBe(`${CLEAR}reconnecting… \\x1b[2J\\u202e`);
  });

  it('other output steps over it: cleared, the line written, the status drawn again under it', () => {
    const t = terminal(80, { stdoutTTY: true });
    const line = statusLine(t.io);
    line.show('[####------]  4/10');
    t.take();
    t.io.out('LINE  TO\n');
    expect(t.take()).toBe(`${CLEAR}LINE  TO\n[####------]  4/10`);
    t.io.err('a message\n');
    expect(t.take()).toBe(`${CLEAR}a message\n[####------]  4/10`);
    // A partial line (a prompt): not drawn over; at its next change it goes on the next row.
    t.io.err('? Continue');
    expect(t.take()).toBe(`${CLEAR}? Continue`);
    line.show('[#####-----]  5/10');
    expect(t.take()).toBe('\n[#####-----]  5/10');
    line.clear();
    t.io.out('done\n');
    expect(t.take()).toBe(`${CLEAR}done\n`);
  });
});

describe('without a terminal', () => {
  afterEach(() => vi.useRealTimers());

  it('a status line is a line per change, whole, never redrawn', () => {
    const t = terminal(40, { tty: false });
    const line = statusLine(t.io);
    line.show(WAIT);
    line.show(WAIT);
    line.show('reconnected');
    expect(t.take()).toBe(`${WAIT}\nreconnected\n`);
  });

  it('a spinner prints its text once and does not animate; progress draws nothing', () => {
    vi.useFakeTimers();
    const t = terminal(40, { tty: false });
    const s = startSpinner(t.io, WAIT);
    s.update(`${WAIT} 5s`);
    vi.advanceTimersByTime(1_000);
    s.stop();
    const p = startProgress(t.io, 10, () => 0);
    p.update(5);
    p.stop();
    expect(t.take()).toBe(`${WAIT}\n`);
  });
});

describe('spinner and progress on a terminal', () => {
  afterEach(() => vi.useRealTimers());

  it('every frame of the spinner is one row within the width, the id whole', () => {
    vi.useFakeTimers();
    const t = terminal(40);
    const s = startSpinner(t.io, WAIT, { env: { TERM: 'xterm' } });
    vi.advanceTimersByTime(400);
    s.stop();
    const frames = t.take().replace(/\u001b\[\?25[lh]/g, '').split(CLEAR).filter(Boolean);
    expect(frames.length).toBeGreaterThan(4);
    for (const f of frames) {
      expect(textWidth(f), f).toBeLessThan(40);
      expect(f).toMatch(new RegExp(`^. ${ID}: `));
      expect(f).not.toContain('\n');
    }
  });

  it('the progress bar is made for stderr\'s width, not stdout\'s', () => {
    let now = 0;
    const t = terminal(40);
    const io = { ...t.io, columns: 200 }; // stdout a wide terminal (or a file): what counts is stderr's
    const p = startProgress(io, 30, () => now);
    now = 1_000;
    p.update(10);
    const drawn = t.take().split(CLEAR).filter(Boolean);
    expect(drawn.at(-1)).toBe(progressLine(10, 30, 1_000, 40));
    for (const d of drawn) expect(textWidth(d)).toBeLessThan(40);
  });
});
