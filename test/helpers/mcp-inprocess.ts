// `svc mcp` in this process: main(['mcp', ...]) with stdin and stdout as in-memory streams and a
// clock the test holds (virtualClock: every wait passes at once; gatedClock: a wait ends when the
// test says), and the MCP SDK's own Client, at its defaults, connected through a small transport
// over those streams (the same newline-delimited JSON-RPC its stdio transport speaks). A wait of
// 45 s on that clock takes milliseconds: no test waits in real time for a host's timeout.
import { PassThrough, Writable } from 'node:stream';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../../src/clock.js';
import { main } from '../../src/main.js';
import { loopbackCertificate } from './tls.js';

/** The client's side of the server's stdin and stdout. */
class StreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();
  constructor(private readonly toServer: PassThrough, private readonly fromServer: PassThrough) {}

  async start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      try {
        for (let m = this.buffer.readMessage(); m; m = this.buffer.readMessage()) this.onmessage?.(m);
      } catch (err) {
        this.onerror?.(err as Error);
      }
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
  }
}

export interface InProcessMcp {
  client: Client;
  stderr(): string;
  /** Ends the session (the client closes stdin) and resolves with main()'s exit code. */
  close(): Promise<number>;
}

/** Starts `svc mcp <args>` in this process on `clock` and connects the SDK's client (tools listed). */
export async function startMcpInProcess(args: string[], opts: { env: Record<string, string>; clock: Clock; client?: ClientOptions }): Promise<InProcessMcp> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let stderr = '';
  const errStream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      stderr += chunk.toString();
      done();
    },
  });
  const exited = main(['mcp', ...args], {
    stdin, stdout, stderr: errStream,
    env: { SVC_CREDENTIAL_STORE: 'file', ...opts.env },
    tty: { stdin: false, stdout: false, stderr: false },
    columns: 80,
    clock: opts.clock,
    trustedCa: loopbackCertificate().cert,
  });
  const client = new Client({ name: 'svc-test', version: '0.0.0' }, opts.client);
  const failed = exited.then((code) => {
    throw new Error(`svc mcp exited ${code} before the client connected: ${stderr}`);
  });
  await Promise.race([client.connect(new StreamTransport(stdin, stdout)).then(() => client.listTools()), failed]);
  failed.catch(() => undefined);
  return {
    client,
    stderr: () => stderr,
    close: async () => {
      await client.close();
      return exited;
    },
  };
}
