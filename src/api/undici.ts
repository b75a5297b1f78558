// The two parts of undici this tool uses: Agent (a keep-alive pool per origin) and request().
// undici's index loads all of it (fetch, websockets, caches, mocks): about 140 ms of parsing on
// every start. Its files resolve by deep path (the package has no `exports` map), so we load
// only these two; the types still come from the package's declarations.
import type { Dispatcher } from 'undici';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import apiRequest from 'undici/lib/api/api-request.js';

export const Agent = AgentClass;
export type { Dispatcher };

export interface HttpRequestOptions {
  method: Dispatcher.HttpMethod;
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
}

/** One request through `dispatcher` (undici's request(), without its global-dispatcher wrapper). */
export function httpRequest(dispatcher: Dispatcher, url: URL | string, opts: HttpRequestOptions): Promise<Dispatcher.ResponseData> {
  const u = typeof url === 'string' ? new URL(url) : url;
  return apiRequest.call(dispatcher, { ...opts, origin: u.origin, path: `${u.pathname}${u.search}` });
}
