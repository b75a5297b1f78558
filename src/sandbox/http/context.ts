// What a handler receives, and how routes are declared (auth mode, idempotency).
import type { IncomingHttpHeaders } from 'node:http';
import type { Account, ApiKeyRecord } from '../records.js';
import type { World } from '../world.js';
import { Router } from './router.js';
import { ApiFault } from '../faults.js';
import type { Reply } from './respond.js';

export interface RequestContext {
  readonly world: World;
  readonly requestId: string;
  readonly method: string;
  /** Path without the query. */
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  /** The body parsed as JSON; 400 invalid_request when it is not JSON. Empty body: undefined. */
  json(): unknown;
}

/** A request authenticated with an API key. */
export interface ApiContext extends RequestContext {
  readonly account: Account;
  readonly key: ApiKeyRecord;
}

export type AuthMode = 'api' | 'admin' | 'none';

export interface Route {
  auth: AuthMode;
  /** Honours Idempotency-Key. */
  idempotent: boolean;
  /**
   * Idempotency keys are remembered per API key, not per account: where the key is the actor (an
   * approval counts once per owner key), one key's Idempotency-Key must not replay another's answer.
   */
  perKey?: boolean;
  /**
   * The handler awaits (it moves the clock and runs what became due, each task its own
   * transaction). Every other handler is synchronous and runs inside one transaction.
   */
  async: boolean;
  handler: (ctx: ApiContext) => Reply | Promise<Reply>;
}

export class Routes {
  readonly router = new Router<Route>();

  /** A /v1 route: Bearer API key required. */
  api(method: string, path: string, handler: (ctx: ApiContext) => Reply): this {
    this.router.add(method, path, { auth: 'api', idempotent: false, async: false, handler });
    return this;
  }

  /** A /v1 route that honours Idempotency-Key; the handler must be synchronous. */
  apiIdempotent(method: string, path: string, handler: (ctx: ApiContext) => Reply, opts: { perKey?: boolean } = {}): this {
    this.router.add(method, path, { auth: 'api', idempotent: true, async: false, handler, ...(opts.perKey ? { perKey: true } : {}) });
    return this;
  }

  /** A control route: the admin token required. */
  admin(method: string, path: string, handler: (ctx: RequestContext) => Reply, opts: { idempotent?: boolean } = {}): this {
    this.router.add(method, path, { auth: 'admin', idempotent: Boolean(opts.idempotent), async: false, handler });
    return this;
  }

  /** A control route whose handler awaits (see Route.async). */
  adminAsync(method: string, path: string, handler: (ctx: RequestContext) => Promise<Reply>): this {
    this.router.add(method, path, { auth: 'admin', idempotent: false, async: true, handler });
    return this;
  }

  /** A route without authentication. */
  open(method: string, path: string, handler: (ctx: RequestContext) => Reply): this {
    this.router.add(method, path, { auth: 'none', idempotent: false, async: false, handler });
    return this;
  }
}

/** Parses a JSON body once. */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiFault(400, 'invalid_request', 'request body is not valid JSON');
  }
}
