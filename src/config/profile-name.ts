// The one rule for a profile name, shared by `profile add` and `sandbox start --profile`.
import { UsageError } from '../errors.js';

export const PROFILE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** Throws invalid_profile_name (exit 2) when `name` breaks the rule. */
export function checkProfileName(name: string): void {
  if (!PROFILE_NAME_RE.test(name)) {
    throw new UsageError(`profile name "${name}" is invalid: use 1-32 letters, digits, "-" or "_", starting with a letter or digit`, undefined, 'invalid_profile_name');
  }
}
