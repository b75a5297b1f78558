// Method + path routing with `:param` segments. Exact paths are a map lookup; patterns are few.
// A path that exists under another method answers 405 with the allowed methods.

export interface Match<R> {
  route: R;
  params: Record<string, string>;
}
export type RouteResult<R> = Match<R> | { allowed: string[] } | undefined;

interface Pattern<R> {
  segments: string[];
  methods: Map<string, R>;
}

export class Router<R> {
  private readonly exact = new Map<string, Map<string, R>>();
  private readonly patterns: Pattern<R>[] = [];

  add(method: string, path: string, route: R): this {
    const m = method.toUpperCase();
    if (!path.includes('/:')) {
      const methods = this.exact.get(path) ?? new Map<string, R>();
      if (methods.has(m)) throw new Error(`route ${m} ${path} is defined twice`);
      this.exact.set(path, methods.set(m, route));
      return this;
    }
    const segments = path.split('/');
    let pattern = this.patterns.find((p) => p.segments.join('/') === segments.join('/'));
    if (!pattern) this.patterns.push((pattern = { segments, methods: new Map() }));
    if (pattern.methods.has(m)) throw new Error(`route ${m} ${path} is defined twice`);
    pattern.methods.set(m, route);
    return this;
  }

  /**
   * Every route as registered, exact paths first, then patterns in the order they were added:
   * the route table the OpenAPI document is built from (src/sandbox/openapi/), so a route added
   * here without documentation fails its build.
   */
  *entries(): Generator<{ method: string; path: string; route: R }> {
    for (const [path, methods] of this.exact) for (const [method, route] of methods) yield { method, path, route };
    for (const p of this.patterns) for (const [method, route] of p.methods) yield { method, path: p.segments.join('/'), route };
  }

  /** The route for a method and a (raw, still percent-encoded) path. */
  match(method: string, rawPath: string): RouteResult<R> {
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.replace(/\/+$/, '') || '/' : rawPath;
    const exact = this.exact.get(path);
    if (exact) {
      const route = exact.get(method);
      return route ? { route, params: {} } : { allowed: [...exact.keys()] };
    }
    const parts = path.split('/');
    let allowed: string[] | undefined;
    for (const p of this.patterns) {
      const params = matchSegments(p.segments, parts);
      if (!params) continue;
      const route = p.methods.get(method);
      if (route) return { route, params };
      allowed = [...(allowed ?? []), ...p.methods.keys()];
    }
    return allowed ? { allowed } : undefined;
  }
}

function matchSegments(pattern: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if (p.startsWith(':')) {
      if (!v) return undefined;
      try {
        params[p.slice(1)] = decodeURIComponent(v);
      } catch {
        return undefined;
      }
    } else if (p !== v) {
      return undefined;
    }
  }
  return params;
}
