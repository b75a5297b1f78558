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
