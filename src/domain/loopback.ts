// What counts as this machine, in one place for the client (where plain http and no proxy are
// allowed), the sandbox (what it listens on and which Host it answers) and `webhook listen`.
// Names under .localhost do not count: they resolve through ordinary DNS.
import { isIP } from 'node:net';

/** 127.0.0.0/8, ::1 (with or without brackets) and the name localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1';
  return isIP(h) === 4 && h.startsWith('127.');
}

/** A Host header (a name, optionally `:port`) that names this machine: `localhost:4000`, `127.0.0.1`, `[::1]:80`. */
export function isLoopbackHostHeader(value: string): boolean {
  const m = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(value.trim());
  return m !== null && m[1] !== '' && isLoopbackHost(m[1]!);
}
