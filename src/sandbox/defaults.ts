// Where and how `svc sandbox start` runs when not told otherwise: one definition for the
// sandbox, the `sandbox start` flags' defaults and the tool's default base URL. Small on purpose:
// the CLI's start-up imports it.
import { formatDuration } from '../domain/duration.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 46630;
/** Time from submission to settlement, on the sandbox clock. */
export const DEFAULT_BLOCK_TIME_MS = 1500;
/** How long a held agent transaction waits for approval. */
export const DEFAULT_APPROVAL_WINDOW_MS = 15 * 60 * 1000;
export const DEFAULT_APPROVAL_WINDOW = formatDuration(DEFAULT_APPROVAL_WINDOW_MS);
/** The base URL a profile gets when none is given: the local sandbox. */
export const DEFAULT_SANDBOX_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;
