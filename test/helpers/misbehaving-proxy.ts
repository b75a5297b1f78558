// Proxies that misbehave at the socket level, for the --timeout promises (docs/security.md): one
// that accepts and never answers, one that answers CONNECT 200 and then stalls the TLS handshake
// inside the tunnel, one that drops every connection. A raw TCP server, not node:http (which
// closes a CONNECT it has no listener for: that would be a proxy that hangs up, not a silent one).
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export type ProxyBehaviour = 'silent' | 'stall-tls' | 'drop';

export const PROXY_BEHAVIOURS: readonly ProxyBehaviour[] = ['silent', 'stall-tls', 'drop'];

export interface MisbehavingProxy {
  url: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Resolves once every connection accepted so far has been closed (by the client, since the proxy never closes one itself except `drop`). */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

export async function startMisbehavingProxy(behaviour: ProxyBehaviour): Promise<MisbehavingProxy> {
  let connections = 0;
  const open = new Set<Socket>();
  const waiters: Array<() => void> = [];
  const server = createServer((socket) => {
    connections++;
    open.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => {
      open.delete(socket);
      if (open.size === 0) waiters.splice(0).forEach((w) => w());
    });
    if (behaviour === 'drop') socket.destroy();
    else if (behaviour === 'stall-tls') {
      // Answers the CONNECT once its head is in, then reads the ClientHello and says nothing.
      let head = '';
      const onData = (chunk: Buffer) => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        socket.off('data', onData);
        socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
        socket.resume();
      };
      socket.on('data', onData);
    }
    // silent: accepts, reads what comes (so it sees the client close), answers nothing.
    else socket.resume();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    allClosed: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((r) => waiters.push(r))),
    close: () =>
      new Promise<void>((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}

/** Resolves with 'done' when `p` settles first, 'limit' when `ms` pass first. */
export async function within(p: Promise<unknown>, ms: number): Promise<'done' | 'limit'> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'limit'>((r) => (timer = setTimeout(() => r('limit'), ms)));
  try {
    return await Promise.race([p.then(() => 'done' as const), limit]);
  } finally {
    clearTimeout(timer);
  }
}
