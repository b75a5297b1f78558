// An account named on the command line of an admin command: `@alice` or `alice`.
import { UsageError } from '../../errors.js';
import { HANDLE_RE } from '../../domain/handle.js';

export function normalizeHandle(text: string): string {
  const h = text.startsWith('@') ? text : `@${text}`;
  if (!HANDLE_RE.test(h)) throw new UsageError(`"${text}" is not a handle: use an @handle such as @alice`);
  return h.toLowerCase();
}
