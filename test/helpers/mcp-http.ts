// `svc mcp --http` as an MCP host that connects by URL runs it: the real binary (`npm run build`
// first) in a process of its own, its URL read from the start line on stderr, and the MCP SDK's
// own Streamable HTTP client at its defaults, one per session.
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawnSvc, type LiveRun } from './run.js';
import type { ClientSetup, ToolCallResult } from './mcp-session.js';

/** The URL in the start line (`... over HTTP at http://127.0.0.1:PORT/mcp/SECRET`). */
const URL_RE = /over HTTP at (http:\/\/\S+)/;

export interface HttpMcp {
  live: LiveRun;
  url: URL;
  /** A new MCP session with the SDK's client (what it declares and handles: `setup`). */
  connect(setup?: ClientSetup): Promise<HttpMcpSession>;
  /** Ends every session and the process with `signal`; its exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; stderr: string }>;
}

export interface HttpMcpSession {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<ToolCallResult>;
}

/** Starts `svc mcp <args>` (args include --http) and waits for its URL. */
export async function startHttpMcp(args: string[], env: Record<string, string | undefined>): Promise<HttpMcp> {
  const live = spawnSvc(['mcp', ...args], env);
  await live.waitFor('stderr', URL_RE);
  const url = new URL(URL_RE.exec(live.stderr())![1]!);
  const clients: Client[] = [];
  return {
    live,
    url,
    async connect(setup = {}) {
      const client = new Client({ name: 'svc-test', version: '0.0.0' }, setup.capabilities ? { capabilities: setup.capabilities } : {});
      setup.setup?.(client);
      await client.connect(new StreamableHTTPClientTransport(url));
      clients.push(client);
      return { client, call: async (name, a = {}) => (await client.callTool({ name, arguments: a })) as ToolCallResult };
    },
    async stop(signal = 'SIGTERM') {
      if (!live.done()) live.child.kill(signal);
      const { code, stderr } = await live.exited;
      await Promise.allSettled(clients.map((c) => c.close()));
      return { code, stderr };
    },
  };
}

export interface RawAnswer {
  status: number;
  body: string;
}

/**
 * One raw HTTP request (node:http, which lets a test set the Host header as a browser's page
 * would): an MCP initialize POSTed to `url`'s host and port at `path`.
 */
export function rawInitialize(url: URL, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  return new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port,
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: url.host, ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      // An SSE answer stays open only as long as the initialize needs; a test reads the status.
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
