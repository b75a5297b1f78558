// Issue 36: an error is reported in one form, on a terminal and piped alike: a line beginning
// `error:` (then, with --json, the one JSON object instead), never Node's `Error: …` /
// `TypeError: …` or a bare word (docs/ux.md "Errors"). In-process for the report (a usage error,
// a service's error, a bug shown with --verbose); the real binary for what only a process meets:
// Ctrl-C while a command waits on the network, piped and in a real terminal (tmux).
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { runCli } from '../helpers/cli.js';
import { BIN, machineEnv } from '../helpers/run.js';
import { UNKNOWN_TEST_KEY } from '../helpers/scripted-server.js';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { hasTmux, killAllTmux, startTmux } from '../helpers/tmux.js';

const SGR = /\u001b\[[0-9;]*m/g;
/** A line that reports an error in a form other than ours. */
const OTHER_FORM = /^(?!error: )[A-Za-z]*(?:Error|ERROR|error)\b:?/m;

describe('the report: `error:` on a terminal and piped, the same words', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  }, 30_000);
  afterAll(async () => {
    await t?.close();
  });

  const broken: Clock = { now: () => { throw new TypeError('clock is broken'); }, sleep: async () => {} };
  const cases: Array<[string, string[], Clock | undefined]> = [
    ['a usage error (commander)', ['transfer', 'send', '@acme', '1', '--bogus'], undefined],
    ["the service's error", ['transfer', 'send', '@nosuchpayee', '1'], undefined],
    ['a bug, with --verbose (its stack)', ['--verbose', 'transfer', 'send', '@acme', '1', '--wait'], broken],
  ];
  for (const [what, argv, clock] of cases) {
    it(what, async () => {
      const env = { SVC_CONFIG_DIR: t.configDir }; // colour on where a terminal is
      const onTty = await runCli(argv, { env, tty: { stdout: true, stderr: true }, ...(clock ? { clock } : {}) });
      const piped = await runCli(argv, { env, ...(clock ? { clock } : {}) });
      expect(onTty.code).toBe(piped.code);
      expect(onTty.stderr).toMatch(SGR); // it was painted: this is the terminal's path
      const plain = onTty.stderr.replace(SGR, '');
      for (const text of [plain, piped.stderr]) {
        expect(text.split('\n')[0]).toMatch(/^error: .+ \(\w+[^)]*\)$/);
        expect(text).not.toMatch(OTHER_FORM);
      }
      // The same words either way (request ids and a bug's stack frames differ from run to run).
      const words = (s: string) => s.split('\n').filter((l) => !/^\s+at /.test(l)).join('\n').replace(/req_\w+/g, 'req_');
      expect(words(plain)).toBe(words(piped.stderr));
    });
  }
});

describe('Ctrl-C while a command waits on the network: `error: interrupted`, not a bare word', () => {
  let server: Server;
  let url = '';
  const connected: Array<() => void> = [];
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    // A service that accepts and never answers: the command is waiting when Ctrl-C comes.
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      connected.splice(0).forEach((f) => f());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  afterEach(killAllTmux);
  const nextConnection = () => new Promise<void>((resolve) => connected.push(resolve));
  const env = () => ({ ...machineEnv(), SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-error-form-')), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: url, NO_COLOR: '1' });

  async function interrupted(args: string[]): Promise<{ code: number | null; stderr: string }> {
    const child = spawn(process.execPath, [BIN, ...args], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    await nextConnection();
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, stderr };
  }

  it('piped: one `error:` line (exit 130); with --json the error object', async () => {
    const plain = await interrupted(['transfer', 'ls']);
    expect(plain.code).toBe(130);
    expect(plain.stderr).toBe('error: interrupted (interrupted)\n');
    const json = await interrupted(['--json', 'transfer', 'ls']);
    expect(json.code).toBe(130);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'interrupted', message: 'interrupted' } });
  });

  it('a bug outside any command (a promise nobody awaited) is said as a bug (exit 70), not in Node\'s words', async () => {
    // The bundle's run(), as bin/svc.js calls it (its files are CommonJS Node's require() loads as
    // they are), with a rejection nobody handles while it waits.
    const bundle = JSON.stringify(fileURLToPath(new URL('../../dist/bundle/svc.cjs', import.meta.url)));
    const script = `const m = (await import('node:module')).createRequire(${bundle})(${bundle});
      setTimeout(() => Promise.reject(new TypeError('lost in a callback')), 200);
      process.exitCode = await m.run(['transfer', 'ls']);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(70);
    expect(stderr).toMatch(/^error: unexpected failure: lost in a callback \(internal_error\)\nhint: this is a bug in svc/);
    expect(stderr).not.toMatch(OTHER_FORM);
  });

  it.skipIf(!hasTmux())('on a terminal: the same line, on its own below the ^C', async () => {
    const waiting = nextConnection();
    const term = await startTmux([process.execPath, BIN, 'transfer', 'ls'], { env: env(), width: 80, height: 10 });
    await waiting;
    await term.sendKeys('C-c');
    expect(await term.waitForExit()).toBe(130);
    const screen = await term.capture();
    expect(screen).toMatch(/^error: interrupted \(interrupted\)$/m);
    expect(screen).not.toMatch(/^interrupted$/m);
  });
});
