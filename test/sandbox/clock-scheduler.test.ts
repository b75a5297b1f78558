import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SandboxClock } from '../../src/sandbox/clock.js';
import { Scheduler } from '../../src/sandbox/scheduler.js';
import { ROOT } from '../helpers/run.js';

/** A task that throws here is a failure of the test, reported where runDue() is awaited. */
const unexpected = (err: unknown) => {
  throw err;
};

function fakeClock(start = 1_700_000_000_000) {
  let real = start;
  const clock = new SandboxClock(() => real);
  return { clock, setReal: (t: number) => (real = t) };
}

describe('SandboxClock', () => {
  it('is real time plus an offset that advance() grows', () => {
    const { clock, setReal } = fakeClock(1000);
    expect(clock.now()).toBe(1000);
    clock.advance(500);
    expect(clock.now()).toBe(1500);
    expect(clock.offsetMs).toBe(500);
    setReal(2000);
    expect(clock.now()).toBe(2500);
    expect(clock.date().toISOString()).toBe(new Date(2500).toISOString());
  });

  it('never goes backwards when real time does', () => {
    const { clock, setReal } = fakeClock(10_000);
    expect(clock.now()).toBe(10_000);
    setReal(9_000);
    expect(clock.now()).toBe(10_000);
    setReal(10_001);
    expect(clock.now()).toBe(10_001);
  });

  it('only moves forward by whole milliseconds', () => {
    const { clock } = fakeClock();
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(1.5)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
  });

  it('restores an offset and a floor from a saved state', () => {
    const { clock } = fakeClock(1000);
    clock.restore(250, 5000);
    expect(clock.offsetMs).toBe(250);
    expect(clock.now()).toBe(5000); // floor wins over 1000 + 250
    expect(clock.lastNowMs).toBe(5000);
  });
});

describe('Scheduler', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('advance() runs every task that became due, in due order, and no other', async () => {
    const { clock } = fakeClock(0);
    const s = new Scheduler(clock, unexpected);
    const ran: string[] = [];
    s.at(300, () => void ran.push('c@300'));
    s.at(100, () => void ran.push('a@100'));
    s.at(200, () => void ran.push('b1@200'));
    s.at(200, () => void ran.push('b2@200'));
    s.at(1000, () => void ran.push('late'));
    await s.advance(300);
    expect(ran).toEqual(['a@100', 'b1@200', 'b2@200', 'c@300']);
    expect(s.size).toBe(1);
    await s.advance(699);
    expect(ran).toHaveLength(4);
    await s.advance(1);
    expect(ran.at(-1)).toBe('late');
    expect(s.size).toBe(0);
  });

  it('passes the due instant, not the time of the run', async () => {
    const { clock } = fakeClock(0);
    const s = new Scheduler(clock, unexpected);
    const seen: number[] = [];
    s.at(1500, (due) => void seen.push(due));
    await s.advance(60_000);
    expect(seen).toEqual([1500]);
  });

  it('runs tasks scheduled by tasks when they are already due', async () => {
    const { clock } = fakeClock(0);
    const s = new Scheduler(clock, unexpected);
    const ran: number[] = [];
    s.at(10, () => {
      ran.push(10);
      s.at(20, () => void ran.push(20));
      s.at(5_000, () => void ran.push(5_000));
    });
    await s.advance(100);
    expect(ran).toEqual([10, 20]);
  });

  it('awaits async tasks in order before resolving', async () => {
    const { clock } = fakeClock(0);
    const s = new Scheduler(clock, unexpected);
    const ran: string[] = [];
    s.at(1, async () => {
      await new Promise((r) => setImmediate(r));
      ran.push('slow@1');
    });
    s.at(2, () => void ran.push('fast@2'));
    await s.advance(2);
    expect(ran).toEqual(['slow@1', 'fast@2']);
  });

  it('cancel() and clear() drop tasks; a throwing task does not stop the others', async () => {
    const { clock } = fakeClock(0);
    const errors: unknown[] = [];
    const s = new Scheduler(clock, (e) => errors.push(e));
    const ran: string[] = [];
    const h = s.at(1, () => void ran.push('cancelled'));
    s.at(2, () => {
      throw new Error('boom');
    });
    s.at(3, () => void ran.push('ok'));
    h.cancel();
    await s.advance(5);
    expect(ran).toEqual(['ok']);
    expect(errors).toHaveLength(1);
    s.at(10, () => void ran.push('cleared'));
    s.clear();
    await s.advance(100);
    expect(ran).toEqual(['ok']);
  });

  it('runs a task when real time reaches it, through one timer', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = new SandboxClock();
    const s = new Scheduler(clock, unexpected);
    const ran: number[] = [];
    s.at(1_000_000 + 1500, (due) => void ran.push(due));
    s.at(1_000_000 + 3000, (due) => void ran.push(due));
    await vi.advanceTimersByTimeAsync(1499);
    expect(ran).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(ran).toEqual([1_001_500]);
    expect(vi.getTimerCount()).toBe(1); // armed for the next one only
    await vi.advanceTimersByTimeAsync(1500);
    expect(ran).toEqual([1_001_500, 1_003_000]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('re-arms the timer after advance() so real time is counted from the new offset', async () => {
    vi.useFakeTimers({ now: 0 });
    const clock = new SandboxClock();
    const s = new Scheduler(clock, unexpected);
    const ran: number[] = [];
    s.at(10_000, (due) => void ran.push(due));
    await s.advance(6_000); // 4 s of real time left
    expect(ran).toEqual([]);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(ran).toEqual([10_000]);
  });
});

describe('the one reader of real time', () => {
  it('is clock.ts: no other sandbox module reads Date.now or calls new Date()', () => {
    const dir = join(ROOT, 'src/sandbox');
    const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    const readers = readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.ts') && /\bDate\.now\b|new Date\(\s*\)/.test(withoutComments(readFileSync(join(dir, f), 'utf8'))));
    expect(readers).toEqual(['clock.ts']);
  });
});
