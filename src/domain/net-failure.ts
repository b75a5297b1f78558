// Why a connection failed, in a few words a person reads at a glance ("connection refused",
// "host not found", "timed out"), from whatever node, undici or an AbortSignal threw. One map
// for the API client, `webhook listen --forward-to` and the sandbox's webhook deliveries. The
// words never quote the error's message: it may carry the URL, and a URL may carry a token.

export interface NetFailure {
  /** The system or undici code when there is one (ECONNREFUSED, UND_ERR_SOCKET ...). */
  code?: string;
  /** A short phrase: "connection refused", "host not found", "timed out" ... */
  words: string;
  /** The connection was refused: the request never left this machine. */
  refused: boolean;
  /** No answer in time (the caller knows its own limit and may say it). */
  timedOut: boolean;
}

const WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  UND_ERR_SOCKET: 'connection reset',
  EPIPE: 'connection reset',
  ECONNABORTED: 'connection aborted',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EAI_NONAME: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
};

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  cause?: ErrorLike;
  errors?: ErrorLike[];
}

/** The first code found on the error, its cause, or (happy eyeballs) the errors it aggregates. */
function codeOf(e: ErrorLike | undefined, depth = 0): string | undefined {
  if (!e || typeof e !== 'object' || depth > 3) return undefined;
  if (typeof e.code === 'string' && e.code) return e.code;
  return codeOf(e.cause, depth + 1) ?? (Array.isArray(e.errors) ? e.errors.map((x) => codeOf(x, depth + 1)).find(Boolean) : undefined);
}

/** Describes a failed connection or request; never throws, whatever it is given. */
export function describeNetFailure(err: unknown): NetFailure {
  const e = (err !== null && typeof err === 'object' ? err : {}) as ErrorLike;
  const code = codeOf(e);
  const withCode = code ? { code } : {};
  if (e.name === 'TimeoutError' || e.cause?.name === 'TimeoutError' || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return { ...withCode, words: 'timed out', refused: false, timedOut: true };
  }
  const known = code === undefined ? undefined : WORDS[code];
  if (known) return { ...withCode, words: known, refused: code === 'ECONNREFUSED', timedOut: false };
  if (code && /CERT|SSL|TLS|EPROTO/i.test(code)) return { ...withCode, words: `TLS error (${code})`, refused: false, timedOut: false };
  return { ...withCode, words: code ? `connection error (${code})` : 'connection error', refused: false, timedOut: false };
}
