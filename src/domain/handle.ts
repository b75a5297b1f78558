// The form of an @handle (an agent's is `@owner/name`). Apart from recipient.ts so that what only
// names accounts (the sandbox's admin commands) does not load the EIP-55 hash with it.
export const HANDLE_RE = /^@[a-z0-9][a-z0-9_.-]{0,62}(?:\/[a-z0-9][a-z0-9_.-]{0,62})?$/i;

/** The owner of an agent's handle (`@owner` of `@owner/name`), or undefined for any other handle:
 * the spec gives every agent the handle `@owner/name`, and only agents have a slash. */
export function agentOwner(handle: string): string | undefined {
  const slash = handle.indexOf('/');
  return slash < 0 ? undefined : handle.slice(0, slash);
}
