// `svc mcp` driven by the MCP SDK's own client over stdio, as an AI agent's client runs it: the
// real binary (`npm run build` first) in a process of its own, its stderr kept for the test. The
// client keeps each tool's outputSchema from tools/list and checks every result against it
// (errors too: their { error }), so a result off its schema fails the call, and the test.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { BIN, machineEnv } from './run.js';

export interface ToolCallResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: Array<{ type: string; text?: string }>;
}

export interface McpSession {
  client: Client;
  stderr(): string;
  /** What the client could not read on the server's stdout (anything but the MCP stream). */
  errors: Error[];
  call(name: string, args?: Record<string, unknown>): Promise<ToolCallResult>;
  close(): Promise<void>;
}

/** What the client declares at initialize, and what it does before connecting (its own request handlers). */
export interface ClientSetup {
  capabilities?: ClientCapabilities;
  setup?: (client: Client) => void;
}

/** Starts `svc mcp <args>` with `env` (on top of the machine's) and connects the SDK's client to it. */
export async function connectMcp(args: string[], env: Record<string, string | undefined>, opts: ClientSetup = {}): Promise<McpSession> {
  const full: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...machineEnv(), ...env })) if (v !== undefined) full[k] = v;
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], env: full, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'svc-test', version: '0.0.0' }, opts.capabilities ? { capabilities: opts.capabilities } : {});
  opts.setup?.(client);
  const errors: Error[] = [];
  client.onerror = (err) => errors.push(err);
  await client.connect(transport);
  await client.listTools();
  return {
    client,
    stderr: () => stderr,
    errors,
    call: async (name, a = {}) => (await client.callTool({ name, arguments: a })) as ToolCallResult,
    close: () => client.close(),
  };
}
