// Tables that fit the terminal (src/io/table.ts, src/io/render.ts) and the time formats
// (src/io/time.ts): pure layout rules, checked line by line.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { amountColumn, idColumn, timeColumn } from '../../src/io/columns.js';
import { ListWriter, printRecord, type Column } from '../../src/io/render.js';
import { createStreams } from '../../src/io/streams.js';
import { fitColumns, textWidth, truncateEnd, truncateMiddle } from '../../src/io/table.js';
import { relativeTime, timeLeft } from '../../src/io/time.js';

function terminal(columns: number) {
  const out = new PassThrough();
  let stdout = '';
  out.on('data', (d: Buffer) => (stdout += d.toString()));
  const io = createStreams({ stdout: out, stderr: new PassThrough(), stdin: new PassThrough(), env: {}, tty: { stdout: true }, columns });
  return { io, lines: () => stdout.split('\n').slice(0, -1) };
}

const ID = 'tr_5cDq2ZxkQ8wLmN3pR7sTGpcv';

describe('truncation', () => {
  it('keeps both ends of addresses', () => {
    expect(truncateMiddle('@acme/payroll-disbursement-bot', 11)).toBe('@acme/…-bot');
    expect(truncateMiddle('0x7a3f1111111111111111111111111111111191c2', 11)).toBe('0x7a3f…91c2');
    expect(truncateMiddle(ID, ID.length)).toBe(ID);
  });

  it('cuts text at the end, by display width (wide characters count two)', () => {
    expect(truncateEnd('invoice for March', 10)).toBe('invoice f…');
    expect(truncateEnd('日本語のメモです', 7)).toBe('日本語…');
    expect(textWidth(truncateEnd('日本語のメモです', 7))).toBeLessThanOrEqual(7);
    expect(textWidth('\u001b[31mred\u001b[39m')).toBe(3);
  });
});

describe('fitColumns', () => {
  // A column that shrinks in the middle (an address) and one that goes whole (an id, drop 1).
  const cols = [
    { header: 'TO', shrink: 'middle' as const, min: 11 },
    { header: 'STATUS' },
    { header: 'AMOUNT', align: 'right' as const },
    { header: 'NOTE', shrink: 'end' as const, min: 11, drop: 1 },
  ];

  it('leaves a table that fits alone', () => {
    expect(fitColumns(cols, [27, 9, 12, 20], 200)).toEqual({ shown: [0, 1, 2, 3], widths: [27, 9, 12, 20] });
  });

  it('shrinks a low-value column first, then the others, and never an amount', () => {
    expect(fitColumns(cols, [27, 9, 12, 27], 70)).toEqual({ shown: [0, 1, 2, 3], widths: [27, 9, 12, 16] });
    const { shown, widths } = fitColumns(cols, [27, 9, 12, 27], 50);
    expect(shown).toEqual([0, 1, 2, 3]);
    expect(widths).toEqual([12, 9, 12, 11]);
  });

  it('shrinks columns of equal value evenly, the widest first', () => {
    const even = [{ header: 'A', shrink: 'end' as const }, { header: 'B', shrink: 'end' as const }, { header: 'C', shrink: 'end' as const }];
    expect(fitColumns(even, [40, 30, 10], 60)).toEqual({ shown: [0, 1, 2], widths: [23, 23, 10] });
  });

  it('drops the lowest-value column once every shrinkable one is at its floor', () => {
    const { shown, widths } = fitColumns(cols, [27, 9, 12, 66], 40);
    expect(shown).toEqual([0, 1, 2]);
    expect(widths).toEqual([15, 9, 12]);
  });

  it('keeps columns that may neither shrink nor drop, even past the width (an amount is never cut)', () => {
    // With nothing left to drop, the address goes below its floor (to 8) before anything else.
    const { shown, widths } = fitColumns(cols, [27, 9, 30, 20], 20);
    expect(shown).toEqual([0, 1, 2]);
    expect(widths).toEqual([8, 9, 30]);
  });

  it('never narrows an id: a droppable id column goes whole, a kept one keeps its width', () => {
    const ids = [
      { header: 'ID' },
      { header: 'TO', shrink: 'middle' as const, min: 13 },
      { header: 'TX HASH', drop: 1 },
    ];
    expect(fitColumns(ids, [27, 42, 66], 200)).toEqual({ shown: [0, 1, 2], widths: [27, 42, 66] });
    expect(fitColumns(ids, [27, 42, 66], 100)).toEqual({ shown: [0, 1], widths: [27, 42] });
    expect(fitColumns(ids, [27, 42, 66], 40)).toEqual({ shown: [0, 1], widths: [27, 11] });
    expect(fitColumns(ids, [27, 42, 66], 20)).toEqual({ shown: [0, 1], widths: [27, 8] });
  });
});

describe('ListWriter tables', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  const columns: Column[] = [
    idColumn('transfer_id', 'ID'),
    { key: 'status', header: 'STATUS' },
    amountColumn('amount', 'AMOUNT', 'asset'),
    { key: 'asset', header: 'ASSET', only: 'tsv' },
    timeColumn('created_at', 'CREATED', () => now, { drop: 2 }),
    idColumn('tx_hash', 'TX HASH', { drop: 1 }),
  ];
  const rows = [
    { transfer_id: ID, status: 'confirmed', amount: '12.5', asset: 'USDG', created_at: '2026-11-23T11:57:00Z', tx_hash: `0x${'ab'.repeat(32)}` },
    { transfer_id: 'tr_2', status: 'pending', amount: '1000.125', asset: 'USDG', created_at: '2026-11-23T11:59:59.500Z', tx_hash: '' },
    { transfer_id: 'tr_3', status: 'failed', amount: 'encrypted', asset: 'USDG', created_at: '2026-11-20T12:00:00Z' },
  ];

  for (const width of [80, 60]) {
    it(`fits ${width} columns: no line longer, amounts right-aligned with one number of decimals`, () => {
      const t = terminal(width);
      const w = new ListWriter(t.io, 'table', columns);
      w.write(rows);
      w.end();
      const lines = t.lines();
      expect(lines).toHaveLength(4);
      for (const l of lines) expect(textWidth(l), l).toBeLessThanOrEqual(width);
      expect(lines[1]).toContain('12.500 USDG');
      expect(lines[2]).toContain('1000.125 USDG');
      const ends = lines.slice(1).map((l) => l.indexOf('USDG') + 4);
      expect(ends[0]).toBe(ends[1]); // right-aligned
      expect(lines[3]).toMatch(/failed\s+encrypted/);
    });
  }

  it('at 80 columns shows relative times and keeps the whole id; narrower, the id is still whole', () => {
    const wide = terminal(80);
    new ListWriter(wide.io, 'table', columns).write(rows);
    expect(wide.lines()[1]).toContain(ID);
    expect(wide.lines()[1]).toContain('3m ago');
    expect(wide.lines()[2]).toContain('now');
    expect(wide.lines()[3]).toContain('3d ago');
    const narrow = terminal(40);
    new ListWriter(narrow.io, 'table', columns).write(rows);
    expect(narrow.lines()[0]).not.toContain('TX HASH');
    expect(narrow.lines()[1]).toMatch(new RegExp(`^${ID} `)); // wider than 40 rather than cut
    expect(narrow.lines().join('\n')).not.toContain('…');
  });

  it('keeps the columns of the first page for the rest of a stream, and never cuts a wider amount', () => {
    const t = terminal(40);
    const w = new ListWriter(t.io, 'table', columns);
    w.write(rows.slice(0, 1));
    w.write([{ ...rows[1]!, amount: '123456789012.123456' }]);
    const [header, , second] = t.lines();
    expect(header!.split(/\s+/)).toEqual(['ID', 'STATUS', 'AMOUNT']);
    expect(second).toContain('123456789012.123456 USDG');
  });

  it('TSV keeps the raw values and the TSV-only columns', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const io = createStreams({ stdout: out, stderr: new PassThrough(), stdin: new PassThrough(), env: {}, tty: { stdout: false } });
    const w = new ListWriter(io, 'tsv', columns);
    w.write(rows.slice(0, 1));
    expect(text.split('\n')[0]).toBe('transfer_id\tstatus\tamount\tasset\tcreated_at\ttx_hash');
    expect(text.split('\n')[1]).toBe(`${ID}\tconfirmed\t12.5\tUSDG\t2026-11-23T11:57:00Z\t0x${'ab'.repeat(32)}`);
  });

  it('a record pads the amount to cents and shows times relative', () => {
    const t = terminal(80);
    printRecord(t.io, 'table', rows[0]!, columns);
    expect(t.lines()).toContain('AMOUNT   12.50 USDG');
    expect(t.lines()).toContain('CREATED  3m ago');
    expect(t.lines().some((l) => l.startsWith('ASSET'))).toBe(false);
  });
});

describe('times', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  it('relative, one coarse unit, both directions; the date past 30 days', () => {
    expect(relativeTime('2026-11-23T11:59:59.600Z', now)).toBe('now');
    expect(relativeTime('2026-11-23T12:00:01.500Z', now)).toBe('now'); // within the Date header's second
    expect(relativeTime('2026-11-23T11:59:18Z', now)).toBe('42s ago');
    expect(relativeTime('2026-11-23T11:57:00Z', now)).toBe('3m ago');
    expect(relativeTime('2026-11-23T12:08:00Z', now)).toBe('in 8m');
    expect(relativeTime('2026-11-23T07:00:00+00:00', now)).toBe('5h ago');
    expect(relativeTime('2026-11-11T12:00:00Z', now)).toBe('12d ago');
    expect(relativeTime('2026-09-01T00:00:00Z', now)).toBe('2026-09-01');
    expect(relativeTime('not a time', now)).toBe('not a time');
  });

  it('time left counts down in seconds under an hour, minutes above, then expired', () => {
    expect(timeLeft(now + 14 * 60_000 + 52_500, now)).toBe('14m52s');
    expect(timeLeft(now + 52_000, now)).toBe('52s');
    expect(timeLeft(now + 2 * 3_600_000 + 5 * 60_000, now)).toBe('2h05m');
    expect(timeLeft(now, now)).toBe('expired');
  });
});
