// Test helpers: an in-process sandbox on an ephemeral port, and a small fetch wrapper.
import { openSandbox } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/types.js';
import { parseAmount } from '../../src/domain/amount.js';

export interface Res {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
  headers: Headers;
}

export interface ReqOptions {
  key?: string;
  body?: unknown;
  /** Sent as is (not JSON-encoded). */
  raw?: string;
  headers?: Record<string, string>;
}

export async function request(url: string, method: string, path: string, opts: ReqOptions = {}): Promise<Res> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const res = await fetch(url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

export const units = (amount: string, asset = 'USDG'): bigint => {
  const r = parseAmount(amount, asset);
  if (!r.ok) throw new Error(r.rule);
  return r.units;
};

/**
 * An in-process sandbox whose real-time source is frozen (unless `realTime`), so sandbox time
 * moves only through advance(): settlement boundaries are exact.
 */
export async function startSandbox(opts: SandboxOptions = {}, { realTime = false } = {}) {
  const logs: string[] = [];
  const frozen = Date.now();
  const { handle, world } = await openSandbox(
    { port: 0, ephemeral: true, blockTimeMs: 1500, log: (l) => logs.push(l), ...opts },
    realTime ? {} : { realNow: () => frozen },
  );
  const keys = new Map(handle.seeded.map((s) => [s.handle, s.apiKey!]));
  const keyOf = (h: string) => {
    const k = keys.get(h);
    if (!k) throw new Error(`no key for ${h}`);
    return k;
  };
  const call = (method: string, path: string, o?: ReqOptions) => request(handle.url, method, path, o);
  const as = (h: string) => ({
    get: (path: string, o: ReqOptions = {}) => call('GET', path, { ...o, key: keyOf(h) }),
    post: (path: string, body?: unknown, o: ReqOptions = {}) => call('POST', path, { ...o, body, key: keyOf(h) }),
    send: (body: Record<string, unknown>, o: ReqOptions = {}) => call('POST', '/v1/transfers', { ...o, body, key: keyOf(h) }),
  });
  const admin = (method: string, path: string, body?: unknown, o: ReqOptions = {}) =>
    call(method, path, { ...o, body, headers: { 'x-sandbox-admin-token': handle.adminToken, ...o.headers } });
  const accountId = (h: string) => world.state.accountByHandle(h)!.account_id;
  const balance = (h: string, asset = 'USDG') => world.state.ledger.balance(accountId(h), asset);
  return { sandbox: handle, world, logs, keyOf, call, as, admin, balance, accountId, close: () => handle.close() };
}
export type TestSandbox = Awaited<ReturnType<typeof startSandbox>>;
