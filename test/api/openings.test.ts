// The bookkeeping that lets a deadline reach a connection still being opened (src/api/openings.ts).
import { describe, expect, it, vi } from 'vitest';
import { Openings } from '../../src/api/openings.js';

describe('Openings', () => {
  it('cancels a connection being opened when the last waiting request gives up, not before', () => {
    const o = new Openings();
    const a = new AbortController();
    const b = new AbortController();
    o.wait(a.signal);
    const leaveB = o.wait(b.signal);
    const cancelled: string[] = [];
    o.open((reason) => cancelled.push((reason as Error & { code: string }).code));
    a.abort(); // a's deadline: b still waits
    expect(cancelled).toEqual([]);
    leaveB(); // b got its answer (or gave up): nobody waits
    expect(cancelled).toEqual(['UND_ERR_ABORTED']);
  });

  it('leaves alone a connection that opened in time', () => {
    const o = new Openings();
    const leave = o.wait(undefined);
    let cancelled = false;
    const done = o.open(() => (cancelled = true));
    done();
    leave();
    expect(cancelled).toBe(false);
  });

  it('counts a request whose signal already aborted as gone at once, and leaving twice as once', () => {
    const o = new Openings();
    const keep = o.wait(undefined);
    const gone = o.wait(AbortSignal.abort());
    gone();
    let cancelled = false;
    o.open(() => (cancelled = true));
    expect(cancelled).toBe(false); // `keep` still waits
    keep();
    expect(cancelled).toBe(true);
  });

  it('cancelAll (shutdown) cancels every connection being opened, once', () => {
    const o = new Openings();
    let n = 0;
    o.open(() => n++);
    o.open(() => n++);
    o.cancelAll(new Error('the command is over'));
    o.cancelAll(new Error('again'));
    expect(n).toBe(2);
  });

  it('makes no error when a request ends with no connection being opened (each page of a long list)', () => {
    const o = new Openings();
    // Every Error built while the requests come and go: none is needed, as nothing is cancelled.
    const made = vi.spyOn(globalThis, 'Error');
    try {
      for (let i = 0; i < 3; i++) o.wait(new AbortController().signal)();
      o.wait(AbortSignal.abort());
      expect(made).not.toHaveBeenCalled();
    } finally {
      made.mockRestore();
    }
    // A connection being opened is still cancelled, with the same error, when its last request leaves.
    const leave = o.wait(undefined);
    const codes: string[] = [];
    o.open((reason) => codes.push((reason as Error & { code: string }).code));
    leave();
    expect(codes).toEqual(['UND_ERR_ABORTED']);
  });
});
