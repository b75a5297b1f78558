// The client's limits, in one small module (the start-up path imports it without the client).

/** --timeout when none is given: the command's network time, retries included. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The longest --timeout: a day, well within what a timer holds (2^31 ms; a longer one fires at once). */
export const MAX_TIMEOUT_MS = 24 * 3_600_000;

/** The largest answer the tool reads (a page of 100 transfers is about 60 KB). Never retried. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/**
 * The largest header block of an answer: Node's default (16 KiB), given to every undici Agent
 * explicitly, so that undici need not load node:http to learn it (scripts/bundle.mjs).
 */
export const MAX_HEADER_BYTES = 16 * 1024;
