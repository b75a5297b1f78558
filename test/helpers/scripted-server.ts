// Small local HTTP servers for tests that need behaviour no faithful service shows on demand:
// scripted statuses (503, 429 + Retry-After), a server that never answers, a connection dropped
// unanswered, a refused port, and a record of every request received (to prove what was, or was
// not, sent).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

export async function startScriptedServer(handler: Handler): Promise<ScriptedServer> {
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

/** The account a fake service gives for GET /v1/accounts/me (`transfer send` asks, to find its journal of keys). */
export const FAKE_ACCOUNT = { account_id: 'acct_fake', handle: '@fake', type: 'personal', kyc_status: 'verified', public_key: `0x${'2'.repeat(40)}`, created_at: '2026-01-01T00:00:00Z' };

/** The handler, with GET /v1/accounts/me answered by FAKE_ACCOUNT (still recorded); `n` counts the other requests. */
export function answeringAccount(handler: Handler): Handler {
  let n = 0;
  return (req) => (req.method === 'GET' && req.url === '/v1/accounts/me' ? { status: 200, body: FAKE_ACCOUNT } : handler(req, ++n));
}
