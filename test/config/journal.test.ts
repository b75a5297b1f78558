// config/journal.ts: the append-only journal under `transfer send` and `transfer batch`. Pruning
// rewrites the file while other runs may hold it open for appending: none of their entries may
// be lost, and only one run prunes at a time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openJournalFile } from '../../src/config/journal.js';

interface Entry {
  id: string;
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
    const pruner = openJournalFile<Entry>(env, 'j', 'x', { parse, keep: (e) => e.id !== 'old' });
    expect(pruner.entries).toEqual([]);
    writer.append({ id: 'late' });
    writer.close();
    expect(ids(readFileSync(writer.path, 'utf8'))).toEqual(['late']);
    expect(openJournalFile<Entry>(env, 'j', 'x', { parse }).entries).toEqual([{ id: 'late' }]);
  });

  it('one pruner at a time: a live run holding the lock leaves the file as it is (entries still dropped in memory); a dead one\'s lock is taken over', () => {
    const first = openJournalFile<Entry>(env, 'j', 'x', { parse });
    first.append({ id: 'old' });
    first.append({ id: 'new' });
    first.close();
    const keep = (e: Entry) => e.id !== 'old';
    writeFileSync(`${first.path}.lock`, String(process.pid)); // this process: alive
    expect(openJournalFile<Entry>(env, 'j', 'x', { parse, keep }).entries).toEqual([{ id: 'new' }]);
    expect(ids(readFileSync(first.path, 'utf8'))).toEqual(['old', 'new']);
    const dead = spawnSync(process.execPath, ['-e', '']).pid!; // exited: its pid is free
    writeFileSync(`${first.path}.lock`, String(dead));
    openJournalFile<Entry>(env, 'j', 'x', { parse, keep });
    expect(ids(readFileSync(first.path, 'utf8'))).toEqual(['new']);
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

  it('an entry `keep` drops is pruned when one read is dropped, or when `stale` finds one in the text; never returned either way', () => {
    const w = openJournalFile<Entry>(env, 'j', 'x', { parse });
    for (const id of ['old-1', 'new-2', 'new-3']) w.append({ id });
    w.close();
    const keep = (e: Entry) => !e.id.startsWith('old');
    // Not read (another key), and `stale` says nothing: left on file.
    const quiet = openJournalFile<Entry>(env, 'j', 'x', { parse, keep, containing: ['new-2'], stale: () => false });
    expect(quiet.entries).toEqual([{ id: 'new-2' }]);
    expect(ids(readFileSync(quiet.path, 'utf8'))).toEqual(['old-1', 'new-2', 'new-3']);
    // `stale` finds it in the text: pruned, though no line read was dropped.
    const swept = openJournalFile<Entry>(env, 'j', 'x', { parse, keep, containing: ['new-3'], stale: (data) => data.includes('"old-') });
    expect(swept.entries).toEqual([{ id: 'new-3' }]);
    expect(ids(readFileSync(swept.path, 'utf8'))).toEqual(['new-2', 'new-3']);
  });

  it('a dropped entry that is read is pruned even when `stale` is not given', () => {
    const w = openJournalFile<Entry>(env, 'j', 'x', { parse });
    for (const id of ['old-1', 'new-2']) w.append({ id });
    w.close();
    const r = openJournalFile<Entry>(env, 'j', 'x', { parse, keep: (e) => !e.id.startsWith('old'), containing: ['old-1'] });
    expect(r.entries).toEqual([]);
    expect(ids(readFileSync(r.path, 'utf8'))).toEqual(['new-2']);
  });
});
