// How deep a JSON text nests, measured before anything recursive touches it: JSON.parse copes
// with any depth, but printing, validating and null-stripping recurse and would overflow the stack.

/** How deep an answer may nest, success or error (the service's are a few levels deep). */
export const MAX_NESTING = 256;

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
