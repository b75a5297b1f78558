// The sandbox's API errors: an operation or a handler throws an ApiFault, and the request
// pipeline (http/server.ts) renders it as the one error envelope. Defined below both, so that
// operations (agents.ts ...) never import the HTTP layer.

export class ApiFault extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra fields for the error object (e.g. `reason`). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiFault';
  }
}

/** 400 invalid_request: the message names the field and the rule. */
export function invalid(message: string): ApiFault {
  return new ApiFault(400, 'invalid_request', message);
}
