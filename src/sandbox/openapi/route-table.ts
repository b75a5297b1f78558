// What the OpenAPI document reads of the sandbox's router (handlers/openapi.ts makes it from the
// real one): each route's method, path and authentication. Kept apart from the HTTP layer so
// the document's modules never import it.

export interface RouteTableEntry {
  method: string;
  /** As registered: `:name` segments for parameters. */
  path: string;
  auth: 'api' | 'admin' | 'none';
  /** Honours Idempotency-Key. */
  idempotent: boolean;
}

/** `/v1/transfers/:id` → `/v1/transfers/{id}` */
export function openApiPath(path: string): string {
  return path.replace(/\/:([A-Za-z_][A-Za-z0-9_]*)/g, '/{$1}');
}

/** The parameter names of a registered path, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
}
