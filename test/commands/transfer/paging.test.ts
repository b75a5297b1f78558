// The pieces of `svc transfer ls --all` without a network: the one-page-ahead pager (driven by
// promises the test settles, so "what was asked for when" is exact), the cheap row check (never
// more lenient than TransferSchema), and the page reader's errors. Also ListWriter's JSON Lines.
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { TransferSchema, type Transfer } from '../../../src/api/schemas.js';
import { isPlainTransfer, TransferPageAnswer, type TransferPage } from '../../../src/commands/transfer/page-answer.js';
import { mapInTurns, rowsAhead, ROWS_PER_TURN, transferPages, type Page } from '../../../src/commands/transfer/paging.js';
import { ListWriter } from '../../../src/io/render.js';
import { createStreams } from '../../../src/io/streams.js';

const row = (i: number): Transfer => ({
  transfer_id: `tr_${i}`, status: 'confirmed', to: '@acme', confidential: true, created_at: '2024-01-01T00:00:00Z',
});

/** A fetch whose answers the test gives, one deferred promise per call. */
function scriptedFetch() {
  const calls: Array<{ offset: number; resolve: (p: TransferPage) => void; reject: (e: unknown) => void }> = [];
  const fetch = (offset: number) => new Promise<TransferPage>((resolve, reject) => void calls.push({ offset, resolve, reject }));
  return { calls, fetch, offsets: () => calls.map((c) => c.offset) };
}
const page = (from: number, n: number, hasMore?: boolean): TransferPage => ({
  items: Array.from({ length: n }, (_, i) => row(from + i)),
  ...(hasMore === undefined ? {} : { hasMore }),
});
/** Lets every pending promise callback run (no timer, no clock). */
const settle = () => new Promise<void>((r) => setImmediate(r));

describe('transferPages: one page ahead', () => {
  it('asks for page n+1 as page n is handed over, and for n+2 only when the caller asks for n+1', async () => {
    const f = scriptedFetch();
    const it = transferPages({ fetch: f.fetch, offset: 0, all: true, limit: 2 });
    const first = it.next();
    await settle();
    expect(f.offsets()).toEqual([0]);
    f.calls[0]!.resolve(page(0, 2, true));
    const p1 = (await first).value as Page;
    expect(p1.items.map((t) => t.transfer_id)).toEqual(['tr_0', 'tr_1']);
    // Page 1 is in the caller's hands (being written): page 2 is already asked for, page 3 not.
    expect(f.offsets()).toEqual([0, 2]);
    f.calls[1]!.resolve(page(2, 2, true));
    await settle();
    expect(f.offsets()).toEqual([0, 2]);
    const p2 = (await it.next()).value as Page;
    expect(p2.offset).toBe(2);
    expect(f.offsets()).toEqual([0, 2, 4]);
    f.calls[2]!.resolve(page(4, 1, false));
    const p3 = (await it.next()).value as Page;
    expect([p3.offset, p3.more]).toEqual([4, false]);
    // has_more=false: no further request, the list ends.
    expect((await it.next()).done).toBe(true);
    expect(f.offsets()).toEqual([0, 2, 4]);
  });

  it('without has_more, a short page (or an empty one) ends the list', async () => {
    for (const last of [1, 0]) {
      const f = scriptedFetch();
      const seen: number[] = [];
      const run = (async () => {
        for await (const p of transferPages({ fetch: f.fetch, offset: 10, all: true, limit: 2 })) seen.push(p.items.length);
      })();
      await settle();
      f.calls[0]!.resolve(page(10, 2));
      await settle();
      f.calls[1]!.resolve(page(12, last));
      await run;
      expect(f.offsets()).toEqual([10, 12]);
      expect(seen).toEqual([2, last]);
    }
  });

  it('without --all: one page, no read-ahead', async () => {
    const f = scriptedFetch();
    const run = (async () => {
      const out: Page[] = [];
      for await (const p of transferPages({ fetch: f.fetch, offset: 0, all: false, limit: 2 })) out.push(p);
      return out;
    })();
    await settle();
    f.calls[0]!.resolve(page(0, 2, true));
    const pages = await run;
    expect(pages.map((p) => p.more)).toEqual([true]);
    expect(f.offsets()).toEqual([0]);
  });

  it('a failed read-ahead is thrown where its page is asked for, after the page before it; never unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const f = scriptedFetch();
      const it = transferPages({ fetch: f.fetch, offset: 0, all: true, limit: 2 });
      const first = it.next();
      await settle();
      f.calls[0]!.resolve(page(0, 2, true));
      expect(((await first).value as Page).items).toHaveLength(2);
      // The read-ahead fails while the caller is still writing page 1.
      f.calls[1]!.reject(new Error('403 forbidden'));
      await settle();
      await settle();
      expect(unhandled).toEqual([]);
      await expect(it.next()).rejects.toThrow('403 forbidden');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('waits for prepare() before asking for the next page (requests never overlap)', async () => {
    const f = scriptedFetch();
    let finishPrepare!: () => void;
    const prepared = new Promise<void>((r) => (finishPrepare = r));
    const it = transferPages({ fetch: f.fetch, offset: 0, all: true, limit: 2, prepare: () => prepared });
    const first = it.next();
    await settle();
    f.calls[0]!.resolve(page(0, 2, true));
    await settle();
    expect(f.offsets()).toEqual([0]);
    finishPrepare();
    await first;
    expect(f.offsets()).toEqual([0, 2]);
  });

  it('stops when the service ignores the offset (the same page twice)', async () => {
    const f = scriptedFetch();
    const it = transferPages({ fetch: f.fetch, offset: 0, all: true, limit: 2 });
    const first = it.next();
    await settle();
    f.calls[0]!.resolve(page(0, 2, true));
    await first;
    f.calls[1]!.resolve(page(0, 2, true));
    await expect(it.next()).rejects.toThrow(/ignored the page offset/);
  });
});

describe('rowsAhead: rows made elsewhere, one page ahead', () => {
  /** Rows the test makes by hand: one deferred promise per page, in the order asked for. */
  function scriptedRows() {
    const asked: Array<{ offset: number; resolve: (rows: string[]) => void; reject: (e: unknown) => void }> = [];
    const rowsOf = (p: Page) => new Promise<string[]>((resolve, reject) => void asked.push({ offset: p.offset, resolve, reject }));
    return { asked, rowsOf, offsets: () => asked.map((a) => a.offset) };
  }

  it('while ahead() is false, a page is yielded before the next is taken: as pagesAhead alone', async () => {
    const f = scriptedFetch();
    const r = scriptedRows();
    const it = rowsAhead(transferPages({ fetch: f.fetch, offset: 0, all: true, limit: 2 }), r.rowsOf, () => false);
    const first = it.next();
    await settle();
    f.calls[0]!.resolve(page(0, 2, true));
    await settle();
    expect(r.offsets()).toEqual([0]);
    r.asked[0]!.resolve(['a', 'b']);
    expect((await first).value).toMatchObject({ page: { offset: 0 }, rows: ['a', 'b'] });
    // Page 2 is asked of the service (pagesAhead), but its rows are not started.
    f.calls[1]!.resolve(page(2, 1, false));
    await settle();
    expect(r.offsets()).toEqual([0]);
    const second = it.next();
    await settle();
    r.asked[1]!.resolve(['c']);
    expect((await second).value).toMatchObject({ page: { offset: 2 }, rows: ['c'] });
    expect((await it.next()).done).toBe(true);
  });

  it('once ahead() is true, the rows of page n+1 are started before page n is yielded; the order holds whichever finishes first', async () => {
    const f = scriptedFetch();
    const r = scriptedRows();
    const it = rowsAhead(transferPages({ fetch: f.fetch, offset: 0, all: true, limit: 2 }), r.rowsOf, () => true);
    const first = it.next();
    await settle();
    f.calls[0]!.resolve(page(0, 2, true));
    await settle();
    f.calls[1]!.resolve(page(2, 2, true));
    await settle();
    // Both pages' rows are under way before page 1 is yielded; page 3 is the one request in flight.
    expect(r.offsets()).toEqual([0, 2]);
    expect(f.offsets()).toEqual([0, 2, 4]);
    r.asked[1]!.resolve(['c', 'd']); // page 2's rows come back first
    r.asked[0]!.resolve(['a', 'b']);
    expect((await first).value).toMatchObject({ page: { offset: 0 }, rows: ['a', 'b'] });
    f.calls[2]!.resolve(page(4, 1, false));
    const second = await it.next();
    expect(second.value).toMatchObject({ page: { offset: 2 }, rows: ['c', 'd'] });
    const third = it.next();
    await settle();
    r.asked[2]!.resolve(['e']);
    expect((await third).value).toMatchObject({ page: { offset: 4 }, rows: ['e'] });
    expect((await it.next()).done).toBe(true);
    expect(f.offsets()).toEqual([0, 2, 4]);
  });

  it('a page that fails to come is thrown after the page held ahead has been yielded; a failed row job is thrown in its turn, never unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const f = scriptedFetch();
      const r = scriptedRows();
      const it = rowsAhead(transferPages({ fetch: f.fetch, offset: 0, all: true, limit: 2 }), r.rowsOf, () => true);
      const first = it.next();
      await settle();
      f.calls[0]!.resolve(page(0, 2, true));
      await settle();
      f.calls[1]!.reject(new Error('403 forbidden'));
      await settle();
      r.asked[0]!.resolve(['a', 'b']);
      expect((await first).value).toMatchObject({ page: { offset: 0 }, rows: ['a', 'b'] });
      await expect(it.next()).rejects.toThrow('403 forbidden');

      const g = scriptedFetch();
      const s2 = scriptedRows();
      const it2 = rowsAhead(transferPages({ fetch: g.fetch, offset: 0, all: true, limit: 2 }), s2.rowsOf, () => true);
      const one = it2.next();
      await settle();
      g.calls[0]!.resolve(page(0, 2, true));
      await settle();
      g.calls[1]!.resolve(page(2, 2, false));
      await settle();
      s2.asked[1]!.reject(new Error('row 3 failed')); // the page held ahead fails first
      await settle();
      expect(unhandled).toEqual([]);
      s2.asked[0]!.resolve(['a', 'b']);
      expect((await one).value).toMatchObject({ rows: ['a', 'b'] });
      await expect(it2.next()).rejects.toThrow('row 3 failed');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('mapInTurns', () => {
  it('maps in order, letting the event loop run every ROWS_PER_TURN rows', async () => {
    let done = 0;
    const seenAt: number[] = [];
    // Something else that wants the loop (an answer arriving) runs at each turn, not only after.
    const other = () => {
      seenAt.push(done);
      if (seenAt.length < 3) setImmediate(other);
    };
    setImmediate(other);
    const out = await mapInTurns(Array.from({ length: 3 * ROWS_PER_TURN + 1 }, (_, i) => i), (i) => (done++, i * 2));
    expect(out).toEqual(Array.from({ length: 3 * ROWS_PER_TURN + 1 }, (_, i) => i * 2));
    expect(seenAt).toEqual([ROWS_PER_TURN, 2 * ROWS_PER_TURN, 3 * ROWS_PER_TURN]);
    expect(await mapInTurns([], (x) => x)).toEqual([]);
  });
});

describe('the cheap row check', () => {
  const base = { transfer_id: 'tr_1', status: 'pending', to: '@acme', confidential: true, created_at: '2024-05-01T12:00:00.123Z' };

  it('accepts what the service sends, extra fields included', () => {
    expect(isPlainTransfer(base)).toBe(true);
    expect(isPlainTransfer({ ...base, from: '@me', tx_hash: '0x1', confirmed_at: '2024-05-01T12:00:01+02:00', asset: 'USDG', amount_ciphertext: 'x', memo_ciphertext: 'y', extra: { a: 1 } })).toBe(true);
  });

  it.each([
    ['status', { ...base, status: 'lost' }],
    ['confidential', { ...base, confidential: 'true' }],
    ['created_at', { ...base, created_at: '2024-02-30T00:00:00Z' }],
    ['confirmed_at', { ...base, confirmed_at: 5 }],
    ['transfer_id', { ...base, transfer_id: 7 }],
    ['tx_hash', { ...base, tx_hash: {} }],
  ])('refuses a bad %s', (_field, v) => {
    expect(isPlainTransfer(v)).toBe(false);
  });

  it('never accepts a row TransferSchema refuses (property)', () => {
    const ts = fc.oneof(
      fc.constant('2024-05-01T12:00:00Z'), fc.constant('2024-05-01T12:00:00.5+01:00'), fc.constant('2024-13-01T00:00:00Z'),
      fc.constant('2024-05-01 12:00:00Z'), fc.constant('2024-05-01T24:00:00Z'), fc.constant('2024-05-01T12:00Z'), fc.string(), fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'x' : d.toISOString())),
    );
    const value = fc.oneof(fc.string(), fc.boolean(), fc.integer(), fc.constant(undefined), fc.constant(null), fc.constantFrom('pending', 'confirmed', 'failed', 'Pending'), ts, fc.array(fc.string(), { maxLength: 2 }));
    const keys = ['transfer_id', 'status', 'from', 'to', 'confidential', 'tx_hash', 'created_at', 'confirmed_at', 'asset', 'amount_ciphertext', 'memo_ciphertext', 'other'] as const;
    const record = fc.record(Object.fromEntries(keys.map((k) => [k, value])), { requiredKeys: [] });
    // Biased towards rows that are nearly right, so both answers come up often.
    const nearly = fc.tuple(fc.constantFrom(...keys), value).map(([k, v]) => ({ ...base, [k]: v }));
    fc.assert(fc.property(fc.oneof(record, nearly, fc.anything()), (v) => {
      if (isPlainTransfer(v)) expect(z.safeParse(TransferSchema, v).success).toBe(true);
    }), { numRuns: 5000 });
  });
});

describe('TransferPageAnswer', () => {
  const parse = (v: unknown) => z.safeParse(TransferPageAnswer, v);
  const base = { transfer_id: 'tr_1', status: 'pending', to: '@acme', confidential: true, created_at: '2024-05-01T12:00:00Z' };

  it('reads the three list shapes and has_more', () => {
    expect(parse({ transfers: [base], has_more: true, limit: 1, offset: 0 }).data).toEqual({ items: [base], hasMore: true });
    expect(parse({ data: [base] }).data).toEqual({ items: [base] });
    expect(parse([base]).data).toEqual({ items: [base] });
  });

  it('names the field of a bad row, or says what a list must look like', () => {
    const bad = parse({ transfers: [base, { ...base, created_at: 'yesterday' }] });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['transfers', 1, 'created_at']);
    expect(parse([base, { ...base, status: 'x' }]).error!.issues[0]!.path).toEqual([1, 'status']);
    for (const v of [{ transfers: 'x' }, { foo: [] }, 'text', null, 7]) {
      const r = parse(v);
      expect(r.success).toBe(false);
      expect(r.error!.issues[0]!.message).toMatch(/expected a list of transfers/);
    }
  });
});

describe('ListWriter with jsonLines', () => {
  it('writes one compact object per line, nothing for an empty list, escaping like --json', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const io = createStreams({ stdout: out, stderr: new PassThrough(), stdin: new PassThrough(), env: {}, tty: { stdout: false } });
    const w = new ListWriter(io, 'json', [], { jsonLines: true });
    w.write([{ id: 'a' }, { id: 'b\u202e' }]);
    w.write([]);
    expect(w.end()).toBe(2);
    expect(text).toBe('{"id":"a"}\n{"id":"b\\u202e"}\n');
    let empty = '';
    const out2 = new PassThrough();
    out2.on('data', (d: Buffer) => (empty += d.toString()));
    const w2 = new ListWriter(createStreams({ stdout: out2, stderr: new PassThrough(), stdin: new PassThrough(), env: {} }), 'json', [], { jsonLines: true });
    w2.end();
    expect(empty).toBe('');
  });
});
