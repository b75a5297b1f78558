// Small local HTTP servers for tests that need behaviour no faithful service shows on demand:
// scripted statuses (503, 429 + Retry-After), a server that never answers, a connection dropped
// unanswered, a refused port, and a record of every request received (to prove what was, or was
// not, sent). With `tls` they serve https on loopback with the process's test certificate
// (tls.ts), which runCli's main() trusts: what a live key needs, since it never goes over plain http.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { loopbackCertificate } from './tls.js';

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

/** Returns a reply, 'hang' to never answer (the socket stays open until close()), or 'reset' to drop the connection unanswered. */
export type Handler = (req: RecordedRequest, n: number) => Reply | 'hang' | 'reset' | Promise<Reply | 'hang' | 'reset'>;

export interface ScriptedServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface ScriptedServerOptions {
  /** Serve https with loopbackCertificate() (runCli trusts it; a spawned svc needs NODE_EXTRA_CA_CERTS=loopbackCaFile()). */
  tls?: boolean;
  /** The service's clock: every answer's Date header (default: the machine's, as node:http sets it). */
  now?: () => number;
}

export async function startScriptedServer(handler: Handler, opts: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse) => {
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
      let reply: Reply | 'hang' | 'reset';
      try {
        reply = await handler(rec, requests.length);
      } catch (err) {
        reply = { status: 500, body: { error: { code: 'test_handler_failed', message: String(err) } } };
      }
      if (reply === 'hang') return;
      if (reply === 'reset') {
        req.socket.destroy();
        return;
      }
      const isText = typeof reply.body === 'string';
      const payload = reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body);
      res.writeHead(reply.status, {
        ...(payload && !isText ? { 'content-type': 'application/json' } : {}),
        ...(opts.now ? { date: new Date(opts.now()).toUTCString() } : {}),
        ...reply.headers,
      });
      res.end(payload);
    });
  };
  const server: Server = opts.tls ? createHttpsServer(loopbackCertificate(), listener) : createServer(listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface ConnectionRecorder {
  url: string;
  /** Every TCP connection accepted, with the bytes it sent (a request line, a key, a TLS hello...). */
  connections: Array<{ received: Buffer }>;
  close(): Promise<void>;
}

/**
 * Someone listening on a loopback port: records every connection, not just every request (even
 * one that sends nothing proves a key was on its way), and answers any bytes with a bare 401 so
 * that a client that did connect ends at once. `port` 0: any free port.
 */
export async function startConnectionRecorder(port = 0): Promise<ConnectionRecorder> {
  const connections: Array<{ received: Buffer }> = [];
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    const record = { received: Buffer.alloc(0) };
    connections.push(record);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      record.received = Buffer.concat([record.received, chunk]);
      if (record.received.includes('\r\n\r\n')) socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    connections,
    close: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
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

/** The account a fake service gives for GET /v1/accounts/me (`transfer send` asks, to find its journal of keys). */
export const FAKE_ACCOUNT = { account_id: 'acct_fake', handle: '@fake', type: 'personal', kyc_status: 'verified', public_key: `0x${'2'.repeat(40)}`, created_at: '2026-01-01T00:00:00Z' };

/** The handler, with GET /v1/accounts/me answered by FAKE_ACCOUNT (still recorded); `n` counts the other requests. */
export function answeringAccount(handler: Handler): Handler {
  let n = 0;
  return (req) => (req.method === 'GET' && req.url === '/v1/accounts/me' ? { status: 200, body: FAKE_ACCOUNT } : handler(req, ++n));
}
