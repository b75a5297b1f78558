// Which connection a request takes. A key may cross a proxy only inside a TLS tunnel: an
// https base URL goes through HTTPS_PROXY (or HTTP_PROXY) unless NO_PROXY exempts its host;
// plain http (allowed only to loopback) and loopback hosts are always direct, whatever the
// environment says.
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';
import { Agent, type Dispatcher } from './undici.js';
import { onShutdown } from '../lifecycle.js';
import { isLoopbackHost } from './url.js';

const KEEP_ALIVE_MS = 4_000;
const pool = new Map<string, Dispatcher>();

function env(vars: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = vars[name] ?? vars[name.toLowerCase()];
  return v && v.trim() ? v.trim() : undefined;
}

/** Whether NO_PROXY (comma or space separated: hosts, .suffixes, *.suffixes, host:port, *) exempts a host. */
export function exemptFromProxy(url: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  for (const raw of noProxy.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const m = /^(.*?)(?::(\d+))?$/.exec(entry)!;
    entry = m[1]!.replace(/^\[|\]$/g, '');
    if (m[2] && m[2] !== port) continue;
    if (entry.startsWith('*.')) entry = entry.slice(1);
    if (entry.startsWith('.') ? host.endsWith(entry) || host === entry.slice(1) : host === entry) return true;
  }
  return false;
}

/** The proxy URL a request to `target` must use, or undefined for a direct connection. */
export function proxyFor(target: URL, vars: NodeJS.ProcessEnv): string | undefined {
  if (target.protocol !== 'https:' || isLoopbackHost(target.hostname)) return undefined;
  if (exemptFromProxy(target, env(vars, 'NO_PROXY'))) return undefined;
  return env(vars, 'HTTPS_PROXY') ?? env(vars, 'HTTP_PROXY');
}

/** Time to set up a tunnel (proxy connection, CONNECT answer, TLS handshake). */
const TUNNEL_TIMEOUT_MS = 15_000;


/**
 * Opens one CONNECT tunnel through `proxy` per connection undici asks for, then TLS to the target
 * inside it: the proxy sees the target's name and port, never a request or a key. One attempt per
 * call, with its own time limit: a proxy that closes or stalls every connection costs one try, and
 * the client's retries (bounded, with backoff) decide what comes next. (undici's ProxyAgent
 * reconnects in a tight loop to a proxy that closes connections.)
 */
function tunnelThrough(proxy: URL): buildConnector.connector {
  return ({ hostname, port, servername }, callback) => {
    let settled = false;
    const finish = (err: Error | null, socket: Socket | null) => {
      if (settled) return void socket?.destroy();
      settled = true;
      if (err || !socket) callback(err ?? new Error('no tunnel'), null);
      else callback(null, socket);
    };
    const target = `${hostname}:${port || 443}`;
    // Loaded here, not at start-up: only a proxied command needs them.
    Promise.all([import(proxy.protocol === 'https:' ? 'node:https' : 'node:http'), import('node:tls')]).then(
      ([http, tls]) => openTunnel(proxy, target, servername || hostname, http.request, tls.connect, finish),
      (err: Error) => finish(err, null),
    );
  };
}

/** CONNECT `target` through `proxy`, then TLS inside the tunnel; `finish` gets the TLS socket or the error, once. */
function openTunnel(
  proxy: URL,
  target: string,
  servername: string,
  httpRequest: typeof import('node:http').request,
  tlsConnect: typeof import('node:tls').connect,
  finish: (err: Error | null, socket: Socket | null) => void,
): void {
  const viaTls = proxy.protocol === 'https:';
  const auth = proxy.username ? { 'proxy-authorization': `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}` } : {};
  const req = httpRequest({
    host: proxy.hostname,
    port: proxy.port || (viaTls ? 443 : 80),
    method: 'CONNECT',
    path: target,
    headers: { host: target, ...auth },
    agent: false,
  });
  const timer = setTimeout(() => {
    req.destroy();
    done(Object.assign(new Error(`the proxy did not open a tunnel to ${target} in time`), { code: 'UND_ERR_CONNECT_TIMEOUT' }), null);
  }, TUNNEL_TIMEOUT_MS);
  timer.unref();
  const done = (err: Error | null, socket: Socket | null) => {
    clearTimeout(timer);
    finish(err, socket);
  };
  req.once('connect', (res, socket) => {
    if (res.statusCode !== 200) {
      socket.destroy();
      return done(Object.assign(new Error(`the proxy refused a tunnel to ${target} (${res.statusCode})`), { code: 'ECONNREFUSED_PROXY' }), null);
    }
    const tls = tlsConnect({ socket, servername, ALPNProtocols: ['http/1.1'] });
    tls.once('secureConnect', () => done(null, tls));
    tls.once('error', (err) => done(err, null));
  });
  req.once('error', (err) => done(err, null));
  req.once('response', (res) => {
    res.destroy();
    done(Object.assign(new Error(`the proxy answered a CONNECT with ${res.statusCode}`), { code: 'ECONNREFUSED_PROXY' }), null);
  });
  req.end();
}

/** A shared dispatcher (keep-alive pool) for requests to `target`, closed at shutdown. */
export function dispatcherFor(target: URL, vars: NodeJS.ProcessEnv): Dispatcher {
  const proxy = proxyFor(target, vars);
  const key = proxy ?? 'direct';
  let d = pool.get(key);
  if (!d) {
    d = new Agent({ keepAliveTimeout: KEEP_ALIVE_MS, ...(proxy ? { connect: tunnelThrough(new URL(proxy)) } : {}) });
    pool.set(key, d);
    const created = d;
    // At the end of a command every answer is in: destroy, do not wait (a proxy that never
    // answered would keep close() waiting forever).
    onShutdown(async () => {
      if (pool.get(key) === created) pool.delete(key);
      await created.destroy();
    });
  }
  return d;
}
