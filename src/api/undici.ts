// The parts of undici this tool uses: Agent (a keep-alive pool per origin), request(), and the
// connector Agent builds by default. undici's index loads all of it (fetch, websockets, caches,
// mocks): about 140 ms of parsing on every start. Its files resolve by deep path (the package has
// no `exports` map), so we load only these; the types still come from the package's declarations.
import type { Dispatcher } from 'undici';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import apiRequest from 'undici/lib/api/api-request.js';
import buildConnectorFn from 'undici/lib/core/connect.js';
import { waitOn } from './openings.js';

export const Agent = AgentClass;
export const buildConnector = buildConnectorFn;
export type { Dispatcher };

export interface HttpRequestOptions {
  method: Dispatcher.HttpMethod;
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
}

/**
 * One request through `dispatcher` (undici's request(), without its global-dispatcher wrapper).
 * Until its answer's headers arrive it counts as waiting for a connection (openings.ts): when it
 * and every other waiting request have given up, a connection still being opened is cancelled.
 */
export async function httpRequest(dispatcher: Dispatcher, url: URL | string, opts: HttpRequestOptions): Promise<Dispatcher.ResponseData> {
  const u = typeof url === 'string' ? new URL(url) : url;
  const leave = waitOn(dispatcher, opts.signal);
  try {
    return await apiRequest.call(dispatcher, { ...opts, origin: u.origin, path: `${u.pathname}${u.search}` });
  } finally {
    leave();
  }
}
