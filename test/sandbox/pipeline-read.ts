// A GET through the sandbox's own request pipeline (src/sandbox/http/server.ts: request id,
// Host check, routing, auth, handler, the commit wait, the JSON text) without a socket: for the
// observable-state snapshot, which reads ~45 endpoints after every generated request of
// property.test.ts. What the snapshot checks is the state those reads show, not HTTP: node's
// parser and undici on both ends were ~2/3 of that file's CPU (docs/performance-suite.md, "The test
// suite"). The generated requests themselves, and assertAlive, still go over the wire; a test in
// snapshot.test.ts holds a snapshot read this way against the same snapshot read over HTTP.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sandboxRoutes } from '../../src/sandbox/handlers/routes.js';
import { createRequestListener } from '../../src/sandbox/http/server.js';
import type { World } from '../../src/sandbox/world.js';

export interface PipelineAnswer {
  status: number;
  text: string;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;
/** One pipeline per sandbox world (routes hold no state: a second instance answers as the server's does). */
const pipelines = new WeakMap<World, Listener>();

/**
 * GET `path` (with its query) from the sandbox of `world`, as a client at `url` would, with these
 * (lower-case) headers. Internal errors go to `log`, as the server's pipeline sends them.
 */
export function pipelineGet(world: World, url: string, path: string, headers: Record<string, string>, log?: (line: string) => void): Promise<PipelineAnswer> {
  let listener = pipelines.get(world);
  if (!listener) {
    listener = createRequestListener(world, sandboxRoutes(), { logRequests: false, ...(log ? { log } : {}) });
    pipelines.set(world, listener);
  }
  const req = { method: 'GET', url: path, headers: { host: new URL(url).host, connection: 'keep-alive', ...headers } };
  return new Promise((resolve) => {
    let status = 0;
    const res = {
      headersSent: false,
      destroyed: false,
      writeHead(s: number) {
        status = s;
        this.headersSent = true;
        return this;
      },
      end(text: string) {
        resolve({ status, text });
      },
    };
    listener(req as unknown as IncomingMessage, res as unknown as ServerResponse);
  });
}
