// `svc mcp --http [HOST:]PORT`: where it listens. Loopback only: the tools spend the profile's
// money, and the only credential is the URL, so no other machine may reach it.
import { UsageError } from '../../errors.js';

export interface HttpAddress {
  /** What the server binds: 127.0.0.1, ::1 or localhost. */
  host: string;
  /** 0: any free port (the printed URL has the real one). */
  port: number;
}

const LOOPBACK = ['127.0.0.1', '::1', 'localhost'];
const RULE = '--http takes [HOST:]PORT with HOST 127.0.0.1 (the default), ::1 or localhost, and PORT 0-65535 (0: any free port)';

export function parseHttpAddress(text: string): HttpAddress {
  // PORT, HOST:PORT, or [::1]:PORT (an IPv6 address with its port needs the brackets).
  const m = /^(?:(\[[^\]]*\]|[^:[\]]*):)?(\d{1,5})$/.exec(text.trim());
  const host = m?.[1] === undefined ? '127.0.0.1' : m[1].replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const port = m ? Number(m[2]) : NaN;
  // One line each, the rule in it: no hint line.
  if (!m || port > 65535) throw new UsageError(`invalid --http "${text}": ${RULE}`, undefined, 'invalid_http_address');
  if (!LOOPBACK.includes(host)) {
    throw new UsageError(`--http serves on loopback only, not on "${host}" (whoever reaches it with its URL can spend this profile's money): ${RULE}`, undefined, 'http_not_loopback');
  }
  return { host, port };
}

/** host:port as it appears in the URL and in the Host header a client sends (IPv6 in brackets). */
export function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
