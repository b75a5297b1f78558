// The one sanitiser: any string that comes from the server or a file (memos, names, handles,
// URLs, error messages) passes through it before it reaches a terminal. Control characters and
// bidirectional overrides become visible escapes, so text can never move the cursor, clear the
// screen, retitle the window or reorder what an approver reads.

// C0 controls, DEL, C1 controls, the bidi embeddings/overrides/isolates, and the line and
// paragraph separators (they break a line like \n does).
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
// The same set minus what JSON.stringify already escapes (C0).
const UNSAFE_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text safe to print on one line of a terminal: every unsafe character shown as an escape. */
export function sanitize(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/** True when the text holds nothing sanitize() would change. */
export function isSafe(text: string): boolean {
  UNSAFE.lastIndex = 0;
  return !UNSAFE.test(text);
}

/**
 * JSON.stringify that also escapes what it leaves raw (DEL, C1 controls, bidi overrides, line
 * separators) as \uXXXX: the document stays valid JSON and holds no raw control character.
 */
export function safeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
