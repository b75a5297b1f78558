// GET /openapi.json (beyond the spec, no token): the sandbox's contract as an OpenAPI 3.1
// document (docs/openapi.md), built from this sandbox's own route table. Built on the first
// request, not at start: the document's module (and zod's JSON Schema converter behind it) is
// imported only then, so `svc sandbox start` does not load it.
import type { RouteTableEntry } from '../openapi/route-table.js';
import type { Routes } from '../http/context.js';
import { ok } from '../http/respond.js';

export const OPENAPI_PATH = '/openapi.json';

/** The route table as the document reads it: method, path, and how each route authenticates. */
export function routeTable(routes: Routes): RouteTableEntry[] {
  return [...routes.router.entries()].map(({ method, path, route }) => ({ method, path, auth: route.auth, idempotent: route.idempotent }));
}

export function registerOpenApiRoute(routes: Routes): void {
  let built: Promise<unknown> | undefined;
  const documentOnce = () => (built ??= import('../openapi/document.js').then((m) => m.buildOpenApiDocument(routeTable(routes))).catch((err: unknown) => {
    built = undefined; // a failed build is tried again by the next request
    throw err;
  }));
  routes.router.add('GET', OPENAPI_PATH, { auth: 'none', idempotent: false, async: true, handler: async () => ok(await documentOnce()) });
}
