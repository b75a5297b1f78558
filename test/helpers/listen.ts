// `svc webhook listen` under test: run in-process (main(argv) with an injected Ctrl-C) or spawned,
// and a raw HTTP client for what a hostile peer sends it (any bytes, any headers, a body cut off
// mid-way). Waiting is on output, never on time.
import { createHmac } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { runCli, type CliResult } from './cli.js';
import type { TestSandbox } from './e2e.js';

export const sign = (secret: string, body: Buffer | string) => createHmac('sha256', secret).update(body).digest('hex');

export interface InProcessListen {
  url: string;
  /** The signing secret (--print-secret, or the one given with --secret-env). */
  secret: string;
  /** The subscription it made (undefined with --no-subscribe). */
  webhookId: string | undefined;
  /** stdout lines, parsed when --json. */
  lines: Array<Record<string, unknown>>;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout has `n` lines, or one matching `match`. */
  waitLines(n: number): Promise<void>;
  waitLine(match: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Ctrl-C (or SIGTERM): resolves with the run's result. */
  stop(signal?: string): Promise<CliResult>;
  done: Promise<CliResult>;
}

/**
 * `svc [--json] webhook listen --print-secret <args>` in-process against `t`; resolves once it
 * is listening (and, when it subscribes, has printed the secret); rejects if it ends first.
 */
export async function listenInProcess(t: TestSandbox, args: string[], opts: { json?: boolean; env?: Record<string, string>; onStdout?: (text: string) => void } = {}): Promise<InProcessListen> {
  const json = opts.json ?? true;
  const interrupt = new AbortController();
  let out = '';
  let err = '';
  const lines: Array<Record<string, unknown>> = [];
  const watchers = new Set<() => void>();
  const notify = () => watchers.forEach((w) => w());
  const subscribing = !args.includes('--no-subscribe');
  const done = runCli([...(json ? ['--json'] : []), 'webhook', 'listen', ...(subscribing ? ['--print-secret'] : []), ...args], {
    env: { ...t.env, ...opts.env },
    interrupt: interrupt.signal,
    onStderr: (s) => ((err += s), notify()),
    onStdout: (s) => {
      opts.onStdout?.(s);
      out += s;
      if (json) for (const l of s.split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      else lines.push(...s.split('\n').filter(Boolean).map((text) => ({ text })));
      notify();
    },
  });
  let finished = false;
  void done.then(() => ((finished = true), notify()));
  const until = <T>(test: () => T | undefined, what: string) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const v = test();
        if (v !== undefined) return (watchers.delete(check), resolve(v));
        if (finished) (watchers.delete(check), reject(new Error(`listen ended before ${what}\nstdout: ${out}\nstderr: ${err}`)));
      };
      watchers.add(check);
      check();
    });
  const ready = subscribing ? /listening on (http:\/\/\S+) \(subscription (wh_\w+)[^\n]*\n[^\n]*signing secret: (\S+)\n/ : /listening on (http:\/\/\S+)/;
  const m = await until(() => ready.exec(err) ?? undefined, 'it was listening');
  return {
    url: m[1]!,
    secret: subscribing ? m[3]! : String(opts.env?.WH ?? ''),
    webhookId: subscribing ? m[2] : undefined,
    lines,
    stdout: () => out,
    stderr: () => err,
    waitLines: (n) => until(() => (lines.length >= n ? true : undefined), `${n} lines`).then(() => {}),
    waitLine: (match) => until(() => lines.find(match), 'the line awaited'),
    stop: (signal = 'SIGINT') => (interrupt.abort(signal), done),
    done,
  };
}

/** The status a POST got, or the error code when none came (ECONNREFUSED, ECONNRESET ...). */
export function post(url: string, body: Buffer | string, headers: Record<string, string | string[]> = {}, opts: { chunked?: boolean } = {}): Promise<number | string> {
  const u = new URL(url);
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return new Promise((resolve) => {
    const req = request({
      host: u.hostname, port: u.port, path: u.pathname, method: 'POST',
      headers: { 'content-type': 'application/json', ...(opts.chunked ? {} : { 'content-length': String(bytes.length) }), ...headers },
    }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    if (opts.chunked) {
      // 64 KiB at a time: no Content-Length, so only counting can stop it.
      for (let i = 0; i < bytes.length; i += 65_536) req.write(bytes.subarray(i, i + 65_536));
      req.end();
    } else req.end(bytes);
  });
}

/** A POST that announces `announced` bytes, sends a few, and hangs up: no answer can come. */
export function postCutShort(url: string, announced = 1000): Promise<void> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => {
      s.write(`POST / HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: ${announced}\r\n\r\n{"event_id":"evt_cut","ev`, () => {
        s.destroy();
        resolve();
      });
    });
    s.on('error', reject);
  });
}

export interface Hostile {
  name: string;
  body: Buffer;
  /** What it must be answered when signed with the right secret (unsigned: always 401). */
  signed: number;
}

/** 100,000 levels of arrays. */
const deep = (n = 100_000) => `${'['.repeat(n)}${']'.repeat(n)}`;

/**
 * Bodies a hostile peer sends: objects with a `toString` that is not a function where strings go,
 * `__proto__` keys, 100,000 levels deep, bad UTF-8, cut-off JSON, not an object. `now` is the
 * service's time, so a well-formed one is fresh.
 */
export function hostileBodies(now: string): Hostile[] {
  const ev = (id: string, extra: string) => `{"event_id":"${id}","event":"transfer.confirmed","timestamp":"${now}"${extra}}`;
  const b = (s: string) => Buffer.from(s, 'utf8');
  return [
    { name: 'type with a toString that is not a function (the report)', body: b('{"type":{"toString":1}}'), signed: 400 },
    { name: 'event_id with a toString', body: b(`{"event_id":{"toString":1},"event":"transfer.confirmed","timestamp":"${now}"}`), signed: 400 },
    { name: 'event with a toString', body: b(`{"event_id":"evt_h1","event":{"toString":1,"valueOf":1},"timestamp":"${now}"}`), signed: 400 },
    { name: 'account with a toString', body: b(ev('evt_h2', ',"account":{"toString":1}')), signed: 400 },
    { name: 'timestamp with a toString', body: b('{"event_id":"evt_h3","event":"transfer.confirmed","timestamp":{"toString":1}}'), signed: 401 },
    { name: 'data with a __proto__ key (the report)', body: b(ev('evt_proto1', ',"data":{"__proto__":{"toString":1}}')), signed: 200 },
    { name: 'a top-level __proto__ with fields in it', body: b(ev('evt_proto2', ',"__proto__":{"account":{"toString":1},"event_id":{"toString":1}}')), signed: 200 },
    { name: '100,000 deep', body: b(deep()), signed: 400 },
    { name: '100,000 deep inside a delivery', body: b(ev('evt_h4', `,"data":${deep()}`)), signed: 400 },
    { name: 'invalid UTF-8', body: Buffer.concat([b('{"event_id":"evt_'), Buffer.from([0xff, 0xfe, 0xc3]), b(`","event":"transfer.confirmed","timestamp":"${now}"}`)]), signed: 400 },
    { name: 'truncated JSON', body: b(ev('evt_h5', '').slice(0, 30)), signed: 400 },
    { name: 'null', body: b('null'), signed: 400 },
    { name: 'an array', body: b('[1,2]'), signed: 400 },
    { name: 'empty', body: b(''), signed: 400 },
    { name: 'an event id of 2,000 characters', body: b(ev('e'.repeat(2000), '')), signed: 400 },
  ];
}

/** The local app `listen --forward-to` forwards to: records each body, answers 204. */
export interface ForwardTarget {
  server: Server;
  url: string;
  hits: string[];
  close(): Promise<void>;
}

export async function startForwardTarget(): Promise<ForwardTarget> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      hits.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
