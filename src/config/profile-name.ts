// The one rule for a profile name, shared by `profile add` and `sandbox start --profile`.
import { UsageError } from '../errors.js';

export const PROFILE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** Throws invalid_profile_name (exit 2) when `name` breaks the rule. */
export function checkProfileName(name: string): void {
  if (!PROFILE_NAME_RE.test(name)) {
    throw new UsageError(`profile name "${name}" is invalid: use 1-32 letters, digits, "-" or "_", starting with a letter or digit`, undefined, 'invalid_profile_name');
  }
}

// `localeCompare`'s order for the characters the rule allows: '_', '-', digits, then letters with
// case ignored; names equal but for case, lowercase first at the first difference. Its first call
// builds ICU's collator (~9 ms on Node 20), which every command that lists profiles paid.
const PRIMARY = '_-0123456789abcdefghijklmnopqrstuvwxyz';

/** Orders profile names as `a.localeCompare(b)` does, without ICU when both keep the rule. */
export function compareProfileNames(a: string, b: string): number {
  // A name edited into the file by hand, outside the rule: ICU decides, as before.
  if (!PROFILE_NAME_RE.test(a) || !PROFILE_NAME_RE.test(b)) return a.localeCompare(b);
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = PRIMARY.indexOf(a[i]!.toLowerCase());
    const y = PRIMARY.indexOf(b[i]!.toLowerCase());
    if (x !== y) return x < y ? -1 : 1;
  }
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] === a[i]!.toLowerCase() ? -1 : 1;
  }
  return 0;
}
