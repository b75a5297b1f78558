// JSON answers and the one error envelope: {"error":{"code","message","request_id"}}.
// Handlers and operations throw ApiFault (../faults.ts); the pipeline renders it with errorBody().
import type { ServerResponse } from 'node:http';

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /**
   * Top-level fields of `body` shown once (a signing secret, an API key, a decryption key). An
   * Idempotency-Key replay still answers them whole: the pipeline keeps such an answer sealed
   * under the sandbox key, never in the clear (http/server.ts).
   */
  shownOnce?: readonly string[];
}

export function ok(body: unknown, status = 200): Reply {
  return { status, body };
}

export function errorBody(code: string, message: string, requestId: string, extra: Record<string, unknown> = {}): unknown {
  return { error: { code, message, request_id: requestId, ...extra } };
}

/**
 * Writes a JSON text with its request id (every answer carries X-Request-Id), and the Date
 * header when given (the sandbox clock's). The headers are one object literal (no spread of a
 * shared one): node takes an object passed to writeHead as it is.
 */
export function sendJson(res: ServerResponse, status: number, text: string, requestId: string, date?: string, headers?: Record<string, string>): void {
  const all: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
    'x-request-id': requestId,
  };
  if (date !== undefined) all.date = date;
  if (headers) for (const k in headers) all[k] = headers[k]!;
  res.writeHead(status, all);
  res.end(text);
}

/**
 * The answer to a request node's HTTP parser refused before any handler saw it (a malformed
 * request line or header, headers too large, a client too slow): still the JSON error envelope
 * with a request id, written straight to the socket, which is then closed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: { writable: boolean; end(data: string): void; destroy(): void }, requestId: string): void {
  if (!socket.writable) return void socket.destroy();
  const [status, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'request_header_fields_too_large', 'the request headers are larger than the sandbox accepts (16 KiB)']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'request_timeout', 'the request was not received in time']
        : [400, 'invalid_request', 'the request is not well-formed HTTP'];
  const body = JSON.stringify(errorBody(code, message, requestId));
  const reason = status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncache-control: no-store\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`);
}
