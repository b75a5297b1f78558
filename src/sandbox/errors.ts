// Errors createSandbox() throws before it is serving: bad options, a busy port, an unreadable
// state file. The CLI turns them into one-line messages with a hint.

export type SandboxStartErrorCode = 'invalid_option' | 'address_in_use' | 'listen_failed' | 'state_unreadable' | 'key_missing' | 'state_locked' | 'state_too_new';

export class SandboxStartError extends Error {
  constructor(
    readonly code: SandboxStartErrorCode,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'SandboxStartError';
  }
}
