// Small local HTTP servers for tests that need behaviour no faithful service shows on demand:
// scripted statuses (503, 429 + Retry-After), a server that never answers, a refused port,
// and a record of every request received (to prove what was, or was not, sent).
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';

// Kept independent of ./e2e.js so tests against fake servers do not load the sandbox.
const BIN = join(resolve(import.meta.dirname, '../..'), 'bin/svc.js');

export interface RecordedRequest {
  method: string;
  /** Path with query string, as received. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** performance.now() when the request arrived. */
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as is. */
  body?: unknown;
}

/** Returns a reply, or 'hang' to never answer (the socket stays open until close()). */
export type Handler = (req: RecordedRequest, n: number) => Reply | 'hang' | Promise<Reply | 'hang'>;

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeServer(handler: Handler): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const rec: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      requests.push(rec);
      let reply: Reply | 'hang';
      try {
        reply = await handler(rec, requests.length);
      } catch (err) {
        reply = { status: 500, body: { error: { code: 'test_handler_failed', message: String(err) } } };
      }
      if (reply === 'hang') return;
      const isText = typeof reply.body === 'string';
      const payload = reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body);
      res.writeHead(reply.status, {
        ...(payload && !isText ? { 'content-type': 'application/json' } : {}),
        ...reply.headers,
      });
      res.end(payload);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A loopback port with nothing listening on it (connections are refused). */
export async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A well-formed test key no service knows. */
export const UNKNOWN_TEST_KEY = 'svc_test_UnknownKey000000000000000000';
export const FAKE_LIVE_KEY = 'svc_live_FakeLiveKey0000000000000000000';

export const ERROR = (code: string, message: string) => ({ error: { code, message, request_id: 'req_fake123' } });

export interface LiveRun {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves when stderr (or stdout) matches, rejects when the process ends first. */
  waitFor(stream: 'stdout' | 'stderr', re: RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Whether the process has already exited. */
  done(): boolean;
}

/** Spawns bin/svc.js and lets the test watch its output while it runs. */
export function spawnSvc(args: string[], env: Record<string, string | undefined>): LiveRun {
  const fullEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ PATH: process.env.PATH, HOME: process.env.HOME, ...env })) if (v !== undefined) fullEnv[k] = v;
  const child = spawn(process.execPath, [BIN, ...args], { env: fullEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let finished = false;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  child.stdout.setEncoding('utf8').on('data', (d: string) => ((out += d), notify()));
  child.stderr.setEncoding('utf8').on('data', (d: string) => ((err += d), notify()));
  child.stdin.end();
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      finished = true;
      notify();
      resolve({ code, stdout: out, stderr: err });
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    done: () => finished,
    waitFor(stream, re, timeoutMs = 15_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          const text = stream === 'stdout' ? out : err;
          if (re.test(text)) return finish(resolve);
          if (finished) finish(() => reject(new Error(`process exited before ${stream} matched ${re}\nstdout: ${out}\nstderr: ${err}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${stream} to match ${re}\nstderr: ${err}`))), timeoutMs);
        const finish = (f: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          f();
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Whether util-linux `script` is available to run the CLI under a pseudo-terminal. */
export const HAS_SCRIPT = (() => {
  try {
    return spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
  } catch {
    return false;
  }
})();

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface TtyRun {
  /** Everything the terminal showed (stdout and stderr together), with \r\n turned into \n. */
  output(): string;
  /** Types into the terminal. */
  write(text: string): void;
  waitFor(re: RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; output: string }>;
}

/**
 * Runs bin/svc.js under a pseudo-terminal (stdin, stdout and stderr are all TTYs) through
 * `script`, so table output, spinners and prompts can be tested end to end.
 */
export function spawnInTty(args: string[], env: Record<string, string | undefined>): TtyRun {
  const fullEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm', ...env })) if (v !== undefined) fullEnv[k] = v;
  const cmd = [process.execPath, BIN, ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: fullEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let finished = false;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  child.stdout.setEncoding('utf8').on('data', (d: string) => ((out += d), notify()));
  child.stderr.setEncoding('utf8').on('data', (d: string) => ((out += d), notify()));
  const norm = () => out.replace(/\r\n/g, '\n');
  const exited = new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      finished = true;
      notify();
      resolve({ code, output: norm() });
    });
  });
  return {
    output: norm,
    write: (text) => void child.stdin.write(text),
    exited,
    waitFor(re, timeoutMs = 15_000) {
      return new Promise<void>((resolve, reject) => {
        const finish = (f: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          f();
        };
        const check = () => {
          if (re.test(norm())) return finish(resolve);
          if (finished) finish(() => reject(new Error(`terminal closed before matching ${re}:\n${norm()}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${re}:\n${norm()}`))), timeoutMs);
        listeners.add(check);
        check();
      });
    },
  };
}

/** Runs bin/svc.js under a pseudo-terminal and waits for it to end. */
export async function runInTty(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  const run = spawnInTty(args, env);
  return run.exited;
}

/** Removes ANSI escape sequences (colours, cursor movement). */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
}
