// Typed errors of the tool. Each kind maps to exactly one exit code in exitCodeFor().

/** Exit codes, as documented in docs/exit-codes.md. */
export const ExitCode = {
  ok: 0,
  apiError: 1,
  usage: 2,
  unauthorized: 3,
  notFound: 4,
  conflict: 5,
  insufficient: 6,
  network: 7,
  held: 8,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Base class for errors the user can act on: printed as one line, no stack. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue = ExitCode.apiError,
    readonly hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad flags, arguments or local input: exit 2, nothing was sent. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.usage, hint);
  }
}

/** The user declined a prompt or a confirmation was required but not possible. */
export class CancelledError extends CliError {
  constructor(message = 'cancelled') {
    super(message, ExitCode.interrupted);
  }
}

/** Could not reach the service, or it did not answer in time. */
export class NetworkError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.network, hint);
  }
}

/** The service answered with an error status. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
    readonly details: Record<string, unknown> = {},
    hint?: string,
  ) {
    super(message, exitCodeForApi(status, code), hint);
  }

  /** The same error with advice on what to do about it. */
  withHint(hint: string): ApiError {
    return new ApiError(this.status, this.code, this.message, this.requestId, this.details, hint);
  }
}

/** Maps an HTTP status and error code to our exit code (the one place this is decided). */
export function exitCodeForApi(status: number, code: string): ExitCodeValue {
  if (code === 'policy_violation' || code === 'insufficient_balance' || status === 402) return ExitCode.insufficient;
  if (status === 400) return ExitCode.usage;
  if (status === 401 || status === 403) return ExitCode.unauthorized;
  if (status === 404) return ExitCode.notFound;
  if (status === 409) return ExitCode.conflict;
  return ExitCode.apiError;
}

/** Exit code for anything thrown out of a command. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  return ExitCode.apiError;
}
