// The one sanitiser: any string that comes from the server or a file (memos, names, handles,
// URLs, error messages) passes through it before it reaches a terminal or an MCP client. Control
// and format characters (Unicode Cc and Cf: C0, DEL, C1, the bidi embeddings, overrides, isolates
// and marks, zero-width spaces and joiners, U+061C, the invisible tag characters that can spell
// out hidden text, the byte-order mark) and the line and paragraph separators can never move the
// cursor, clear the screen, retitle the window, reorder what an approver reads, or hide words from
// a person while a model reads them. On a terminal each becomes a visible escape; for a model
// (forModel) a format character is removed and a control character escaped. One exception keeps
// emoji whole: a zero-width joiner between two pictographs (👩‍👩‍👧) is part of what is drawn.

// Format characters, a zero-width joiner among them unless it joins two pictographs.
const FORMAT_SOURCE = String.raw`(?!\u200d)\p{Cf}|(?<![\p{Extended_Pictographic}\u{1F3FB}-\u{1F3FF}\uFE0F])\u200d|\u200d(?!\p{Extended_Pictographic})`;
const UNSAFE = new RegExp(String.raw`[\p{Cc}\u2028\u2029]|${FORMAT_SOURCE}`, 'gu');
// The same set minus what JSON.stringify already escapes (C0).
const UNSAFE_IN_JSON = new RegExp(String.raw`[\u007f-\u009f\u2028\u2029]|${FORMAT_SOURCE}`, 'gu');
// What a model is spared: format characters (removed), as sanitize() finds them.
const FORMAT = new RegExp(FORMAT_SOURCE, 'gu');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/** Text safe to print on one line of a terminal: every unsafe character shown as an escape. */
export function sanitize(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/**
 * Text for a model (an MCP client): format characters removed (invisible to a person reading
 * the same text, they must not carry words to a model), control characters escaped as for a
 * terminal.
 */
export function forModel(text: string): string {
  return sanitize(text.replace(FORMAT, ''));
}

/** True when the text holds nothing sanitize() would change. */
export function isSafe(text: string): boolean {
  UNSAFE.lastIndex = 0;
  return !UNSAFE.test(text);
}

/**
 * JSON.stringify that also escapes what it leaves raw (DEL, C1 controls, format characters, line
 * separators) as \uXXXX (a surrogate pair for a tag character): the document stays valid JSON
 * and holds no raw control or format character.
 */
export function safeJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent);
  // Every character UNSAFE_IN_JSON matches is DEL or beyond ASCII: a text of one byte per
  // character without DEL has none (native checks; the Unicode regex costs more per call).
  if (Buffer.byteLength(text, 'utf8') === text.length && !text.includes('\x7f')) return text;
  return text.replace(UNSAFE_IN_JSON, (c) => [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''));
}
