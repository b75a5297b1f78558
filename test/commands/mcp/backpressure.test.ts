// `svc mcp` facing a host that sends calls and never reads the answers: it stops reading requests
// while its answers cannot be written, so its memory does not grow with what the host sends
// (before: 30,000 `tools/list` calls unread took it from 64 MB to 1.36 GB). In-process, with a
// stdout that never drains: the test counts answers written and requests left unread, and waits
// on turns of the event loop, never on time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/config/profiles.js';
import { main } from '../../../src/main.js';
import { MAX_IN_FLIGHT } from '../../../src/commands/mcp/backpressure.js';
import { virtualClock } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-pressure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CALLS = 30_000;
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};

describe('svc mcp and a host that never reads its answers', () => {
  it(`reads at most a few calls ahead of what it can write: of ${CALLS.toLocaleString('en')} tools/list calls, it answers a handful and leaves the rest unread`, async () => {
    await new ProfileStore(dir).set('reader', { apiKey: 'svc_test_0123456789abcdef0123', baseUrl: 'http://127.0.0.1:9' }, { makeCurrent: true });
    const stdin = new PassThrough();
    let answers = 0;
    let firstAnswer!: () => void;
    const answered = new Promise<void>((r) => (firstAnswer = r));
    // A pipe nobody reads: the first write never completes, so every later one waits in memory.
    const stdout = new Writable({ highWaterMark: 1024, write: () => {} });
    const write = stdout.write.bind(stdout);
    stdout.write = ((chunk: unknown, ...rest: never[]) => {
      answers++;
      firstAnswer();
      return write(chunk as string, ...rest);
    }) as typeof stdout.write;
    const stderr = new PassThrough();
    stderr.resume();
    const ctrlC = new AbortController();
    const served = main(['mcp', '--read-only'], {
      stdin, stdout, stderr, env: { SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file' }, clock: virtualClock(),
      tty: { stdin: false, stdout: false, stderr: false }, interrupt: { signal: ctrlC.signal, handle: () => {} },
    });
    const send = (m: object) => stdin.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '0' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    for (let id = 1; id <= CALLS; id++) send({ jsonrpc: '2.0', id, method: 'tools/list' });
    await answered; // the server is up and has begun answering
    await turns(2_000); // then as long as it likes to read on
    // Each answer written or waiting is one the host has not read: a bounded number of them.
    expect(answers).toBeGreaterThan(0);
    expect(answers).toBeLessThanOrEqual(MAX_IN_FLIGHT + 2);
    // The rest of the calls are still in the pipe (both of its ends' buffers), unread.
    expect(stdin.readableLength + stdin.writableLength).toBeGreaterThan(CALLS * 30);
    // The answers waiting for 'drain' are expected, not a leak: no warning on the host's log.
    expect(stdout.listenerCount('drain')).toBeGreaterThan(10);
    expect(stdout.getMaxListeners()).toBeGreaterThanOrEqual(stdout.listenerCount('drain'));
    ctrlC.abort('SIGINT'); // stdin's end would wait behind the unread calls: Ctrl-C ends it (exit 130)
    stdin.end();
    expect(await served).toBe(130);
  });
});
