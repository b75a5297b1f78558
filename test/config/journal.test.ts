// config/journal.ts: the append-only file under the ledger. Pruning rewrites the file while other
// runs may hold it open for appending: none of their entries may be lost, and only one run
// prunes at a time (the lock of config-lock.ts, taken over from a dead holder through `.break`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openJournalFile } from '../../src/config/journal.js';

interface Entry {
  id: string;
  at?: string;
}
const parse = (v: unknown) => (typeof (v as Entry | null)?.id === 'string' ? (v as Entry) : undefined);
const ids = (text: string) => text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as Entry).id);

let dir = '';
let env: NodeJS.ProcessEnv = {};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-journal-'));
  env = { SVC_CONFIG_DIR: dir };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('pruning while another run appends', () => {
  it('an entry appended through a file opened before another run pruned it reaches the new file', () => {
    const writer = openJournalFile<Entry>(env, 'j', 'x', { parse });
    writer.append({ id: 'old' }); // its file is open from here on
    const pruner = openJournalFile<Entry>(env, 'j', 'x', { parse });
    pruner.prune((e) => e.id !== 'old');
    writer.append({ id: 'late' });
    writer.close();
    expect(ids(readFileSync(writer.path, 'utf8'))).toEqual(['late']);
    expect(openJournalFile<Entry>(env, 'j', 'x', { parse }).entries).toEqual([{ id: 'late' }]);
  });

  it("one pruner at a time: a live run holding the lock leaves the file as it is; a dead one's lock is taken over", () => {
    const first = openJournalFile<Entry>(env, 'j', 'x', { parse });
    first.append({ id: 'old' });
    first.append({ id: 'new' });
    first.close();
    const keep = (e: Entry) => e.id !== 'old';
    writeFileSync(`${first.path}.lock`, `${process.pid} ${hostname()}\n`); // this process: alive
    openJournalFile<Entry>(env, 'j', 'x', { parse }).prune(keep);
    expect(ids(readFileSync(first.path, 'utf8'))).toEqual(['old', 'new']);
    const dead = spawnSync(process.execPath, ['-e', '']).pid!; // exited: its pid is free
    writeFileSync(`${first.path}.lock`, `${dead} ${hostname()}\n`);
    openJournalFile<Entry>(env, 'j', 'x', { parse }).prune(keep);
    expect(ids(readFileSync(first.path, 'utf8'))).toEqual(['new']);
    expect(existsSync(`${first.path}.lock`)).toBe(false);
    expect(existsSync(`${first.path}.lock.break`)).toBe(false);
  });

  it('prune rewrites every line of the file, not only those read', () => {
    const w = openJournalFile<Entry>(env, 'j', 'x', { parse });
    for (const id of ['old-1', 'new-2', 'old-3']) w.append({ id });
    w.close();
    const r = openJournalFile<Entry>(env, 'j', 'x', { parse, containing: ['new-2'] });
    expect(r.entries).toEqual([{ id: 'new-2' }]);
    r.prune((e) => !e.id.startsWith('old'));
    expect(ids(readFileSync(r.path, 'utf8'))).toEqual(['new-2']);
  });
});

describe('reading a large journal for one key', () => {
  it('`containing`: only lines holding the text become entries; the file keeps every line', () => {
    const w = openJournalFile<Entry>(env, 'j', 'x', { parse });
    for (const id of ['a-1', 'b-2', 'a-3', 'c-4']) w.append({ id });
    w.close();
    const r = openJournalFile<Entry>(env, 'j', 'x', { parse, containing: ['"a-'] });
    expect(r.entries).toEqual([{ id: 'a-1' }, { id: 'a-3' }]);
    expect(ids(readFileSync(r.path, 'utf8'))).toEqual(['a-1', 'b-2', 'a-3', 'c-4']);
  });

  it('holdsTimeBefore: the first line is the oldest, unless the clock was set back since (then every line is looked at)', () => {
    const w = openJournalFile<Entry>(env, 'j', 'x', { parse });
    w.append({ id: '1', at: '2030-01-10T00:00:00.000Z' });
    w.append({ id: '2', at: '2030-01-20T00:00:00.000Z' });
    w.close();
    const r = openJournalFile<Entry>(env, 'j', 'x', { parse, containing: [] });
    expect(r.holdsTimeBefore('2030-01-05T00:00:00.000Z', '2030-02-01T00:00:00.000Z')).toBe(false);
    expect(r.holdsTimeBefore('2030-01-15T00:00:00.000Z', '2030-02-01T00:00:00.000Z')).toBe(true);
    // Now before the first line: the clock went back; a later line older than the cutoff is still found.
    const back = openJournalFile<Entry>(env, 'j', 'y', { parse });
    back.append({ id: '1', at: '2030-03-01T00:00:00.000Z' });
    back.append({ id: '2', at: '2030-01-01T00:00:00.000Z' });
    back.close();
    expect(openJournalFile<Entry>(env, 'j', 'y', { parse }).holdsTimeBefore('2030-01-15T00:00:00.000Z', '2030-02-01T00:00:00.000Z')).toBe(true);
  });
});
