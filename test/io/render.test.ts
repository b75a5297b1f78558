import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ListWriter, outputMode, printRecord } from '../../src/io/render.js';
import { createStreams } from '../../src/io/streams.js';

function fakeIO(tty: boolean) {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d: Buffer) => (stdout += d.toString()));
  err.on('data', (d: Buffer) => (stderr += d.toString()));
  const io = createStreams({ stdout: out, stderr: err, stdin: new PassThrough(), env: {}, tty: { stdin: tty, stdout: tty, stderr: tty } });
  return { io, get stdout() { return stdout; }, get stderr() { return stderr; } };
}

const cols = [{ key: 'id', header: 'ID' }, { key: 'status', header: 'STATUS' }];

describe('output modes', () => {
  it('picks json, table on a TTY, tsv when piped', () => {
    expect(outputMode(fakeIO(true).io, true)).toBe('json');
    expect(outputMode(fakeIO(true).io, false)).toBe('table');
    expect(outputMode(fakeIO(false).io, false)).toBe('tsv');
  });

  it('streams one JSON array across pages', () => {
    const f = fakeIO(false);
    const w = new ListWriter(f.io, 'json', cols);
    w.write([{ id: 'a', status: 'x' }]);
    w.write([]);
    w.write([{ id: 'b', status: 'y' }, { id: 'c', status: 'z\t' }]);
    expect(w.end()).toBe(3);
    expect(JSON.parse(f.stdout)).toEqual([{ id: 'a', status: 'x' }, { id: 'b', status: 'y' }, { id: 'c', status: 'z\t' }]);
  });

  it('prints [] for an empty JSON list and a message for an empty table', () => {
    const j = fakeIO(false);
    new ListWriter(j.io, 'json', cols).end();
    expect(j.stdout).toBe('[]\n');
    const t = fakeIO(true);
    new ListWriter(t.io, 'table', cols).end('Nothing here.');
    expect([t.stdout, t.stderr]).toEqual(['', 'Nothing here.\n']);
  });

  it('writes the TSV header even for an empty list, so scripts can rely on it', () => {
    const f = fakeIO(false);
    new ListWriter(f.io, 'tsv', cols).end();
    expect(f.stdout).toBe('id\tstatus\n');
  });

  it('keeps table columns aligned across pages', () => {
    const f = fakeIO(true);
    const w = new ListWriter(f.io, 'table', cols);
    w.write([{ id: 'abcdef', status: 'ok' }]);
    w.write([{ id: 'x', status: 'ok' }]);
    w.end();
    expect(f.stdout).toBe('ID      STATUS\nabcdef  ok\nx       ok\n');
  });

  it('names the columns a narrow terminal dropped, on stderr after the table; says nothing when all fit', () => {
    const wide = [{ key: 'id', header: 'ID' }, { key: 'status', header: 'STATUS' }, { key: 'memo', header: 'MEMO', drop: 2 }, { key: 'hash', header: 'TX HASH', drop: 1 }];
    const row = { id: 'tr_0123456789', status: 'confirmed', memo: 'the nightly payout run', hash: `0x${'ab'.repeat(32)}` };
    const narrow = fakeIO(true);
    const n = new ListWriter({ ...narrow.io, columns: 40 }, 'table', wide);
    n.write([row]);
    n.end();
    expect(narrow.stdout).not.toContain('TX HASH');
    expect(narrow.stderr).toBe('MEMO, TX HASH not shown: widen the\nterminal or use --json\n'); // wrapped at the 40 columns
    const roomy = fakeIO(true);
    const r = new ListWriter({ ...roomy.io, columns: 200 }, 'table', wide);
    r.write([row]);
    r.end();
    expect(roomy.stdout).toContain('TX HASH');
    expect(roomy.stderr).toBe('');
  });

  it('writes TSV with one header and escaped cells', () => {
    const f = fakeIO(false);
    const w = new ListWriter(f.io, 'tsv', cols);
    w.write([{ id: 'a', status: 'p\tq' }]);
    w.write([{ id: 'b', status: null }]);
    w.end();
    expect(f.stdout).toBe('id\tstatus\na\tp\\tq\nb\t\n'); // a tab inside a cell is escaped, never a column break
  });

  it('aligns table columns', () => {
    const f = fakeIO(true);
    const w = new ListWriter(f.io, 'table', cols);
    w.write([{ id: 'abc', status: 'ok' }, { id: 'd', status: 'pending' }]);
    w.end();
    expect(f.stdout).toBe('ID   STATUS\nabc  ok\nd    pending\n');
  });

  it('prints a record as aligned pairs or TSV pairs', () => {
    const t = fakeIO(true);
    printRecord(t.io, 'table', { id: 'x', status: 'ok' }, [{ key: 'id', header: 'ID' }, { key: 'status', header: 'Status' }]);
    expect(t.stdout).toBe('ID      x\nStatus  ok\n');
    const p = fakeIO(false);
    printRecord(p.io, 'tsv', { id: 'x', status: 'ok' }, [{ key: 'id', header: 'ID' }, { key: 'status', header: 'Status' }]);
    expect(p.stdout).toBe('id\tx\nstatus\tok\n');
  });

  it('turns colour and prompts off without a TTY or with NO_COLOR', () => {
    const piped = fakeIO(false).io;
    expect([piped.color, piped.canPrompt]).toEqual([false, false]);
    const tty = fakeIO(true).io;
    expect([tty.color, tty.canPrompt]).toEqual([true, true]);
    const noColor = createStreams({ env: { NO_COLOR: '1' }, tty: { stdin: true, stdout: true, stderr: true } });
    expect(noColor.color).toBe(false);
  });
});
