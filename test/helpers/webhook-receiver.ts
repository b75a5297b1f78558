// A scriptable webhook receiver on loopback: `behave(n, request)` answers the n-th request with
// a status (optionally after a delay), holds it open ('hang') or resets the connection; the test
// waits on events (waitFor, released), never on time.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  raw: Buffer;
  json: Record<string, unknown>;
}
export type Behaviour = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang' | 'reset';

export interface Receiver {
  url: string;
  got: Received[];
  /** What to do with the n-th request (1-based). */
  behave: (n: number, r: Received) => Behaviour;
  /** Requests that arrived and are still held open. */
  held: () => number;
  /** Requests answered so far (a delayed answer counts once written). */
  answered: () => number;
  /** Resolves when no request is held open any more (their connections closed). */
  released(): Promise<void>;
  /** Resolves when `n` requests have arrived in total. */
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(behave: Receiver['behave'] = () => ({ status: 200 }), onReceive?: (r: Received) => void): Promise<Receiver> {
  const got: Received[] = [];
  const sockets = new Set<Socket>();
  let heldCount = 0;
  let answeredCount = 0;
  let releaseWaiters: Array<() => void> = [];
  let waiters: Array<{ n: number; resolve: () => void }> = [];
  const rec: Receiver = {
    url: '',
    got,
    behave,
    held: () => heldCount,
    answered: () => answeredCount,
    released: () => (heldCount === 0 ? Promise.resolve() : new Promise((resolve) => releaseWaiters.push(resolve))),
    waitFor: (n) => (got.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        /* not JSON */
      }
      const r: Received = { headers: req.headers, raw, json };
      got.push(r);
      onReceive?.(r);
      const b = rec.behave(got.length, r);
      const ready = waiters.filter((w) => got.length >= w.n);
      waiters = waiters.filter((w) => got.length < w.n);
      for (const w of ready) w.resolve();
      if (b === 'hang') {
        heldCount++;
        res.on('close', () => {
          if (--heldCount > 0) return;
          for (const w of releaseWaiters) w();
          releaseWaiters = [];
        });
        return;
      }
      if (b === 'reset') {
        req.socket.destroy();
        return;
      }
      const answer = () => {
        res.writeHead(b.status, b.headers);
        res.end('{"ok":true}');
        answeredCount++;
      };
      if (b.delayMs) setTimeout(answer, b.delayMs).unref();
      else answer();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return rec;
}
