// How deep a JSON text nests, measured before anything recursive touches it: JSON.parse copes
// with any depth, but printing, validating and null-stripping recurse and would overflow the stack.

/** How deep an answer may nest, success or error (the service's are a few levels deep). */
export const MAX_NESTING = 256;

/**
 * Whether a JSON text nests deeper than `max`. A text with at most `max` opening brackets (in
 * strings or not) cannot: counting them with indexOf is native and ~50x faster than the exact
 * scan below, which runs only for a text with more (a 100-row page has about a hundred).
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let opens = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) {
      if (++opens > max) return nestingDepth(text) > max;
    }
  }
  return false;
}

/** The deepest nesting of arrays and objects in a JSON text (strings skipped), in one pass. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/**
 * `text` with every array or object that opens deeper than `depth` replaced by `null`, in one
 * pass: what is left is shallow, safe to parse and to print. (Text that is not JSON stays not JSON.)
 */
export function cutDeeperThan(text: string, depth: number): string {
  const parts: string[] = [];
  let from = 0;
  let level = 0;
  let cutAt = 0; // the level of the value being cut, 0 when none
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++level > depth && cutAt === 0) {
        parts.push(text.slice(from, i), 'null');
        cutAt = level;
      }
    } else if (c === 0x5d || c === 0x7d) {
      if (level === cutAt) {
        from = i + 1;
        cutAt = 0;
      }
      level--;
    }
  }
  if (cutAt === 0) parts.push(text.slice(from));
  return parts.join('');
}
