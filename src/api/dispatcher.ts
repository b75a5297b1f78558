// Which connection a request takes. A key may cross a proxy only inside a TLS tunnel: an
// https base URL goes through HTTPS_PROXY (or HTTP_PROXY) unless NO_PROXY exempts its host;
// plain http (allowed only to loopback) and loopback hosts are always direct, whatever the
// environment says.
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';
import { Agent, buildConnector as undiciConnector, type Dispatcher } from './undici.js';
import { attachOpenings, givenUp, Openings } from './openings.js';
import { tunnelThrough } from './tunnel.js';
import { onShutdown } from '../lifecycle.js';
import { MAX_HEADER_BYTES } from './limits.js';
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

/**
 * undici's own connector (direct TCP, then TLS for https), reporting to `openings` so that a
 * connection still being opened is cancelled with the requests that wait for it.
 */
function directThrough(openings: Openings, ca: string | undefined): buildConnector.connector {
  const connect = undiciConnector(ca ? { ca } : {}) as unknown as (options: buildConnector.Options, callback: buildConnector.Callback) => Socket;
  return (options, callback) => {
    let socket: Socket | undefined;
    const done = openings.open((reason) => socket?.destroy(reason));
    try {
      socket = connect(options, (...args) => {
        done();
        callback(...args);
      });
    } catch (err) {
      done();
      throw err;
    }
  };
}

/**
 * A shared dispatcher (keep-alive pool) for requests to `target`, closed at shutdown. `ca`: the
 * certificate authorities (PEM) to trust instead of Node's, given only by main()'s caller (tests
 * serving https on loopback); no flag or variable sets it.
 */
export function dispatcherFor(target: URL, vars: NodeJS.ProcessEnv, ca?: string): Dispatcher {
  const proxy = proxyFor(target, vars);
  const key = `${proxy ?? 'direct'}${ca ? `\n${ca}` : ''}`;
  let d = pool.get(key);
  if (!d) {
    const openings = new Openings();
    d = new Agent({ keepAliveTimeout: KEEP_ALIVE_MS, maxHeaderSize: MAX_HEADER_BYTES, connect: proxy ? tunnelThrough(new URL(proxy), openings, ca) : directThrough(openings, ca) });
    attachOpenings(d, openings);
    pool.set(key, d);
    const created = d;
    // At the end of a command every answer is in. destroy() closes open sockets without waiting,
    // but knows nothing of a connection still being opened: those are cancelled first.
    onShutdown(async () => {
      if (pool.get(key) === created) pool.delete(key);
      openings.cancelAll(givenUp('the command is over'));
      await created.destroy();
    });
  }
  return d;
}
