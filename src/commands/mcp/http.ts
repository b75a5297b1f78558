// `svc mcp --http`: the same MCP server over Streamable HTTP (the SDK's transport), for hosts that
// connect by URL. Loopback only (http-address.ts), at an unguessable path printed once on stderr:
// that URL is the credential, so every other path gets a bare 404 that says nothing of the real
// one. Host and Origin must name the address it listens on (a web page whose name was made to
// resolve to 127.0.0.1 sends its own: 403, against DNS rebinding). Each MCP session (Mcp-Session-Id)
// has its own transport and SDK Server, all built by serve.ts's newServer, so they share the
// tools, the session budget and the log line. It serves until Ctrl-C or SIGTERM.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CliError } from '../../errors.js';
import type { IOStreams } from '../../io/streams.js';
import { sanitize } from '../../io/sanitize.js';
import { hostPort, type HttpAddress } from './http-address.js';

export interface HttpServeOptions {
  io: IOStreams;
  address: HttpAddress;
  /** A new SDK Server with svc's handlers, for one session. */
  newServer: () => Server;
  /** The start line's beginning (`serving profile ...`); the URL is added to it. */
  serving: string;
  /** Resolves with the signal's name on Ctrl-C or SIGTERM. */
  interrupted: Promise<string>;
  /** A session ended (the client's DELETE, or its transport closed): what ran for it stops (its task waits, counted). */
  sessionEnded?: (sessionId: string) => number;
}

/**
 * Open sessions at most: each holds an SDK Server until its client ends it (DELETE) or the
 * process stops, and a host that crashes never does; past this, a new initialize is refused (503)
 * rather than memory growing without bound. Hosts open one session each.
 */
export const MAX_SESSIONS = 64;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
}

/** Serves until interrupted, then closes every session and releases the port. */
export async function serveHttp(opts: HttpServeOptions): Promise<void> {
  const { io, address } = opts;
  // 192 bits from the OS's random source: the URL is the only credential.
  const path = `/mcp/${randomBytes(24).toString('base64url')}`;
  const sessions = new Map<string, Session>();
  const log = (line: string) => io.err(`${sanitize(`mcp: ${line}`)}\n`);
  let origin = ''; // http://host:port, once the port is known

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`HTTP request failed: ${(err instanceof Error ? err.message : String(err)).slice(0, 200)}`);
      if (!res.headersSent) refuse(res, 500, 'internal error');
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // DNS rebinding: a page of another site reaches 127.0.0.1 with its own Host (and Origin).
    if (req.headers.host?.toLowerCase() !== origin.slice('http://'.length)) return refuse(res, 403, 'forbidden: the Host header is not the address this server listens on');
    if (req.headers.origin !== undefined && req.headers.origin.toLowerCase() !== origin) return refuse(res, 403, 'forbidden: requests from another origin are refused');
    if (!samePath(pathOf(req.url), path)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.get(id);
      // A session this server does not know (ended, or never was): 404 tells the client to start anew.
      if (!session) return refuse(res, 404, 'session not found: start a new one with initialize');
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return refuse(res, 400, 'bad request: Mcp-Session-Id header required');
    if (sessions.size >= MAX_SESSIONS) {
      log(`HTTP session refused: ${MAX_SESSIONS} already open (a client that ends its session sends DELETE; restart svc mcp to drop them all)`);
      return refuse(res, 503, `too many open sessions (${MAX_SESSIONS}): end one (DELETE) or restart svc mcp`);
    }
    // No session yet: a transport of its own answers the initialize (anything else it refuses, and
    // then it is dropped at once).
    const server = opts.newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, { transport, server });
        log(`HTTP session opened (${sessions.size} open)`);
      },
      onsessionclosed: (sid) => void end(sid),
    });
    transport.onclose = () => void (transport.sessionId !== undefined && end(transport.sessionId));
    transport.onerror = (err) => log(err.message.slice(0, 200));
    await server.connect(transport);
    try {
      await transport.handleRequest(req, res);
    } finally {
      // Not an initialize that opened a session (refused, or it threw): this Server serves nobody.
      if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await server.close();
    }
  }

  /** A session the client ended (DELETE) or whose transport closed. */
  async function end(sid: string): Promise<void> {
    const session = sessions.get(sid);
    if (!session) return;
    sessions.delete(sid);
    const stopped = opts.sessionEnded?.(sid) ?? 0;
    log(`HTTP session closed (${sessions.size} open)${stopped > 0 ? `; its ${stopped} task wait(s) stopped (the held transactions stay held)` : ''}`);
    await session.server.close();
  }

  const port = await listen(httpServer, address);
  origin = `http://${hostPort(address.host, port)}`;
  log(`${opts.serving} over HTTP at ${origin}${path}`);
  log('that URL is the credential: whoever has it can use these tools, so give it only to the MCP host; every other path answers 404. Ctrl-C stops it');

  const signal = await opts.interrupted;
  // Each session's server and transport closed, open streams ended, then the port released.
  const open = [...sessions.values()];
  sessions.clear();
  await Promise.allSettled(open.map((s) => s.server.close()));
  httpServer.closeAllConnections();
  await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  if (signal === 'SIGINT' && io.stderrIsTTY) io.err('\n'); // off the terminal's `^C`
  log(`stopped serving (interrupted)${open.length > 0 ? `; ${open.length} open session(s) closed` : ''}`);
}

async function listen(server: ReturnType<typeof createServer>, { host, port }: HttpAddress): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new CliError('failure', (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 'address_in_use' : 'listen_failed', `cannot listen on ${hostPort(host, port)}: ${(err as Error).message}`)));
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** The request target without its query. */
function pathOf(url = ''): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Compares in constant time (hashes of equal length), so the answer's timing does not leak the path. */
function samePath(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** A JSON-RPC error body with the status, as the SDK's own transport answers. */
function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
