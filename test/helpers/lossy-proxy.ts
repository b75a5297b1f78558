// A proxy on loopback in front of a real service (the in-process sandbox), for the ways an answer
// gets lost between the service and svc: each request is forwarded and answered as usual, or
// forwarded and its answer dropped (the service did the work; svc sees a reset), or answered by
// the proxy itself (a 429 of a rate limiter in between) without reaching the service. The script
// may wait before it decides (a request held until the test releases it). Every request is
// recorded. svc reaches it as its base URL (a test key over plain http to loopback).
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type ProxyAction =
  | 'forward'
  /** Forwarded; the service's whole answer read, then the connection to svc dropped unanswered. */
  | 'drop-answer'
  /** Answered here, never forwarded (the Date header is the service's last one). */
  | { status: number; body?: unknown; headers?: Record<string, string> };

export type ProxyScript = (req: ProxiedRequest, n: number) => ProxyAction | Promise<ProxyAction>;

export interface LossyProxy {
  url: string;
  requests: ProxiedRequest[];
  /** Requests the service saw (forwarded ones). */
  forwarded: ProxiedRequest[];
  close(): Promise<void>;
}

interface Upstream {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function forward(target: URL, req: ProxiedRequest): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, host: target.host };
    const up = httpRequest({ hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    up.on('error', reject);
    up.end(req.body);
  });
}

export async function startLossyProxy(targetUrl: string, script: ProxyScript): Promise<LossyProxy> {
  const target = new URL(targetUrl);
  const requests: ProxiedRequest[] = [];
  const forwarded: ProxiedRequest[] = [];
  let lastDate: string | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const rec: ProxiedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(rec);
      try {
        const action = await script(rec, requests.length);
        if (action === 'forward' || action === 'drop-answer') {
          forwarded.push(rec);
          const up = await forward(target, rec);
          const date = up.headers.date;
          if (typeof date === 'string') lastDate = date;
          if (action === 'drop-answer') {
            req.socket.destroy();
            return;
          }
          const headers: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && k !== 'connection' && k !== 'keep-alive' && k !== 'transfer-encoding') headers[k] = v;
          res.writeHead(up.status, headers);
          res.end(up.body);
          return;
        }
        const payload = action.body === undefined ? '' : JSON.stringify(action.body);
        res.writeHead(action.status, { ...(payload ? { 'content-type': 'application/json' } : {}), ...(lastDate ? { date: lastDate } : {}), ...action.headers });
        res.end(payload);
      } catch (err) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'proxy_failed', message: String(err) } }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    forwarded,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** An answer of a rate limiter in between: 429 with a Retry-After of a second. */
export const RATE_LIMITED: ProxyAction = { status: 429, headers: { 'retry-after': '1' }, body: { error: { code: 'rate_limited', message: 'slow down' } } };

/** Whether a request is the POST that makes a transfer. */
export const isTransferPost = (r: ProxiedRequest) => r.method === 'POST' && r.url === '/v1/transfers';
