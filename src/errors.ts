// Typed errors of the tool. Every failure carries a code (the service's, or one of ours listed
// in docs/exit-codes.md) and a kind; the kind alone decides the exit code, in exitCodeOfKind().

/** Exit codes, as documented in docs/exit-codes.md. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  unauthorized: 3,
  notFound: 4,
  conflict: 5,
  refused: 6,
  network: 7,
  held: 8,
  software: 70,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * What each exit code means, for people: `svc help exit-codes` and the man page print this
 * (docs/exit-codes.md has the error codes behind each). A code without a meaning does not compile.
 */
export const EXIT_CODE_MEANING: Record<keyof typeof ExitCode, string> = {
  ok: 'success (also an empty list)',
  failure: 'other failure: a failed transfer, a bad answer, a doctor check failed, or you answered No',
  usage: 'bad usage or input: nothing was sent',
  unauthorized: 'unauthorized or forbidden (also KYC required, no or invalid API key)',
  notFound: 'not found (recipient, transfer, transaction, webhook, profile, agent)',
  conflict: 'conflict or expired (idempotency key reused with another body, config locked)',
  refused: 'insufficient balance or policy violation; a held transaction rejected',
  network: 'network or timeout (also --timeout-wait ran out): the outcome may be unknown',
  held: 'held for human approval: not an error, not yet sent',
  software: 'a bug in svc',
  interrupted: 'interrupted (Ctrl-C)',
};

/** What went wrong, in the words of the exit-code map. */
export type ErrorKind =
  | 'failure' // an API error without a more precise kind, a failed transfer, a bad response, unsupported_by_service
  | 'usage' // bad flags, arguments or local input; nothing was sent
  | 'auth' // unauthorized or forbidden
  | 'not_found'
  | 'conflict' // conflict or expired (a held transaction's window closed: transaction_expired)
  | 'refused' // insufficient balance or policy violation; a held transaction a human rejected (transaction_rejected)
  | 'network' // could not reach the service, or no answer in time (wait_timeout: a --wait ran out)
  | 'held' // held for human approval: not an error, not yet sent
  | 'cancelled' // the user answered No
  | 'interrupted' // Ctrl-C
  | 'internal'; // a bug

const EXIT_BY_KIND: Record<ErrorKind, ExitCodeValue> = {
  failure: ExitCode.failure,
  usage: ExitCode.usage,
  auth: ExitCode.unauthorized,
  not_found: ExitCode.notFound,
  conflict: ExitCode.conflict,
  refused: ExitCode.refused,
  network: ExitCode.network,
  held: ExitCode.held,
  cancelled: ExitCode.failure,
  interrupted: ExitCode.interrupted,
  internal: ExitCode.software,
};

/** The one place a kind becomes an exit code. */
export function exitCodeOfKind(kind: ErrorKind): ExitCodeValue {
  return EXIT_BY_KIND[kind];
}

/**
 * What a failed request did at the service, over all its tries (api/delivery.ts): nothing left
 * this machine, the service refused it, or it may have made something and no answer says what.
 */
export type Undelivered = 'not_sent' | 'refused' | 'unknown';

export interface ErrorOptions {
  hint?: string;
  /** Extra fields for the JSON error object (transfer_id, idempotency_key, reason ...). */
  details?: Record<string, unknown>;
  /** Set by the API client on the error a request ends with. */
  delivery?: Undelivered;
}

/** An error the user can act on: printed as one line (plus a hint), no stack. */
export class CliError extends Error {
  readonly hint?: string;
  readonly details: Record<string, unknown>;
  /** What the request this error ended did at the service (errors of the API client only). */
  readonly delivery?: Undelivered;

  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    opts: ErrorOptions = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.hint = opts.hint;
    this.details = opts.details ?? {};
    if (opts.delivery) this.delivery = opts.delivery;
  }

  get exitCode(): ExitCodeValue {
    return exitCodeOfKind(this.kind);
  }

  /** The same error (same class and fields) with a hint, more details and/or a longer message. */
  with(extra: ErrorOptions & { message?: string }): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this;
    Object.assign(copy, this, { hint: extra.hint ?? this.hint, details: { ...this.details, ...extra.details } });
    if (extra.delivery) Object.assign(copy, { delivery: extra.delivery });
    Object.defineProperty(copy, 'message', { value: extra.message ?? this.message, writable: true, configurable: true });
    Object.defineProperty(copy, 'stack', { value: this.stack, writable: true, configurable: true });
    return copy;
  }
}

/**
 * What an error line puts in its parenthesis: `code`, or `code: reason` (a policy's rule, which
 * the service's message may not name). A reason the message already says (a rejecting
 * approver's words, quoted in it) is not said again: one message says a thing once.
 */
export function codeWithReason(e: CliError): string {
  const reason = e.details.reason;
  return typeof reason === 'string' && reason !== '' && !e.message.includes(reason) ? `${e.code}: ${reason}` : e.code;
}

/**
 * The command has printed everything it had to say (its result on stdout, any message on
 * stderr); only its exit code is left, decided by the kind as for any failure: a transfer held
 * for approval (held), a dry run's verdict (held, refused), a batch's worst row, doctor's failed
 * check, Ctrl-C ending a command that runs until it. Nothing more is printed for it (gh's
 * SilentError and PendingError).
 */
export class SilentExit extends CliError {
  constructor(kind: ErrorKind, code: string) {
    super(kind, code, code);
  }
}

/** Bad flags, arguments or local input (exit 2): nothing was sent. `code` names the rule broken. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string, code = 'invalid_argument') {
    super('usage', code, message, { hint });
  }
}

/** A live-key action needs a confirmation that cannot be asked here (exit 2, nothing sent). */
export class ConfirmationRequiredError extends CliError {
  constructor(what: string) {
    super('usage', 'confirmation_required', `${what}: confirmation required`, {
      hint: 'there is no terminal to ask on (or --no-input was given): pass --yes to confirm',
    });
  }
}

/** The user answered No. Not an error report: main prints the message as it is (exit 1). */
export class CancelledError extends CliError {
  constructor(message = 'Cancelled; nothing was sent.') {
    super('cancelled', 'cancelled', message);
  }
}

/** Could not reach the service, or it did not answer in time (exit 7). */
export class NetworkError extends CliError {
  constructor(code: 'network_error' | 'timeout', message: string, hint?: string, details?: Record<string, unknown>) {
    super('network', code, message, { hint, details });
  }
}

/** The service answered with an error status. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
    readonly requestId?: string,
    details: Record<string, unknown> = {},
    hint?: string,
  ) {
    super(kindOfApiError(status, code), code, message, { hint, details });
  }
}

/** Maps an HTTP status and error code to a kind (hence an exit code). */
export function kindOfApiError(status: number, code: string): ErrorKind {
  if (code === 'policy_violation' || code === 'insufficient_balance' || status === 402) return 'refused';
  if (status === 400) return 'usage';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  return 'failure';
}

/** Exit code for an HTTP status and error code. */
export function exitCodeForApi(status: number, code: string): ExitCodeValue {
  return exitCodeOfKind(kindOfApiError(status, code));
}

