// A CONNECT tunnel through a proxy, then TLS to the target inside it: the proxy sees the target's
// name and port, never a request or a key. One tunnel per connection undici asks for, each one
// attempt that ends in a socket or an error, never later than TUNNEL_TIMEOUT_MS, and sooner when
// cancelled (openings.ts: every request waiting for it gave up, or the command is over). Ending
// destroys everything the attempt opened: the CONNECT request, the socket it handed over, the
// TLS socket on top. (undici's ProxyAgent reconnects in a tight loop to a proxy that closes
// connections; here the client's retries, bounded and with backoff, decide what comes next.)
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';
import type { Openings } from './openings.js';

/** The most one tunnel may take to open (proxy connection, CONNECT answer, TLS handshake), whatever --timeout allows. */
const TUNNEL_TIMEOUT_MS = 15_000;

type Finish = (err: Error | null, socket: Socket | null) => void;
interface Destroyable {
  destroy(): unknown;
  on(event: 'error', listener: () => void): unknown;
}

/** `ca`: the certificate authorities to trust instead of Node's (dispatcher.ts). */
export function tunnelThrough(proxy: URL, openings: Openings, ca?: string): buildConnector.connector {
  return ({ hostname, port, servername }, callback) => {
    const target = `${hostname}:${port || 443}`;
    const opened: Destroyable[] = [];
    let settled = false;
    const finish: Finish = (err, socket) => {
      if (settled) return void socket?.destroy();
      settled = true;
      clearTimeout(timer);
      doneOpening();
      if (err || !socket) {
        // Errors after this point are about sockets we are closing: nobody is left to tell.
        for (const s of opened) {
          s.on('error', () => {});
          s.destroy();
        }
        callback(err ?? new Error('no tunnel'), null);
      } else callback(null, socket);
    };
    const doneOpening = openings.open((reason) => finish(reason, null));
    const timer = setTimeout(() => finish(Object.assign(new Error(`the proxy did not open a tunnel to ${target} in time`), { code: 'UND_ERR_CONNECT_TIMEOUT' }), null), TUNNEL_TIMEOUT_MS);
    timer.unref();
    // Loaded here, not at start-up: only a proxied command needs them.
    Promise.all([import(proxy.protocol === 'https:' ? 'node:https' : 'node:http'), import('node:tls')]).then(
      ([http, tls]) => {
        if (!settled) openTunnel(proxy, target, servername || hostname, ca, http.request, tls.connect, (s) => opened.push(s), finish);
      },
      (err: Error) => finish(err, null),
    );
  };
}

/** CONNECT `target` through `proxy`, then TLS inside the tunnel; `own` is told every socket it opens, `finish` the outcome. */
function openTunnel(
  proxy: URL,
  target: string,
  servername: string,
  ca: string | undefined,
  httpRequest: typeof import('node:http').request,
  tlsConnect: typeof import('node:tls').connect,
  own: (s: Destroyable) => void,
  finish: Finish,
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
  own(req);
  req.once('connect', (res, socket) => {
    own(socket);
    if (res.statusCode !== 200) {
      return finish(Object.assign(new Error(`the proxy refused a tunnel to ${target} (${res.statusCode})`), { code: 'ECONNREFUSED_PROXY' }), null);
    }
    const tls = tlsConnect({ socket, servername, ALPNProtocols: ['http/1.1'], ...(ca ? { ca } : {}) });
    own(tls);
    tls.once('secureConnect', () => finish(null, tls));
    tls.on('error', (err) => finish(err, null));
  });
  req.on('error', (err) => finish(err, null));
  req.once('response', (res) => {
    res.destroy();
    finish(Object.assign(new Error(`the proxy answered a CONNECT with ${res.statusCode}`), { code: 'ECONNREFUSED_PROXY' }), null);
  });
  req.end();
}
