// How `svc sandbox start` runs when not told otherwise: one definition for the sandbox and the
// `sandbox start` flags' defaults (where it listens: src/domain/sandbox-address.ts, which the
// tool's default base URL shares). Small on purpose: the CLI's start-up imports it.
import { formatDuration } from '../domain/duration.js';
import { DEFAULT_SANDBOX_HOST, DEFAULT_SANDBOX_PORT } from '../domain/sandbox-address.js';

export const DEFAULT_HOST = DEFAULT_SANDBOX_HOST;
export const DEFAULT_PORT = DEFAULT_SANDBOX_PORT;
/** Time from submission to settlement, on the sandbox clock. */
export const DEFAULT_BLOCK_TIME_MS = 1500;
/** How long a held agent transaction waits for approval. */
export const DEFAULT_APPROVAL_WINDOW_MS = 15 * 60 * 1000;
export const DEFAULT_APPROVAL_WINDOW = formatDuration(DEFAULT_APPROVAL_WINDOW_MS);
/** The most the clock may move in one call (`sandbox clock advance`): ten years. */
export const MAX_ADVANCE_MS = 10 * 365 * 24 * 60 * 60 * 1000;
