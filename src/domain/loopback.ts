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

/** A URL a sandbox may serve: plain http on a loopback host (it serves nothing else). */
export function isSandboxUrl(text: string | undefined): boolean {
  if (!text) return false;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

export type TransportCheck =
  | { ok: true; url: URL }
  /** not a URL; plain http to a host that is not loopback; or another scheme. */
  | { ok: false; why: 'invalid' }
  | { ok: false; why: 'plain-http' | 'scheme'; url: URL };

/**
 * The one transport rule for every URL svc or the sandbox sends something to (an API key, a
 * webhook delivery): https anywhere, plain http only to a loopback host. Each caller words the
 * refusal for its own field.
 */
export function checkTransportUrl(text: string): TransportCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, why: 'invalid' };
  }
  if (url.protocol === 'https:') return { ok: true, url };
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname) ? { ok: true, url } : { ok: false, why: 'plain-http', url };
  return { ok: false, why: 'scheme', url };
}
