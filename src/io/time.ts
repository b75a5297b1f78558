// How times and durations look to a person (docs/ux.md): relative and short on a terminal
// (`3m ago`, `in 8m`); --json and TSV keep the service's ISO 8601 text untouched.
import { formatDuration } from '../domain/duration.js';

const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

/** One coarse unit: 42s, 3m, 5h, 12d (whole units, rounded down). */
function coarse(ms: number): string {
  if (ms < M) return `${Math.floor(ms / S)}s`;
  if (ms < H) return `${Math.floor(ms / M)}m`;
  if (ms < D) return `${Math.floor(ms / H)}h`;
  return `${Math.floor(ms / D)}d`;
}

/**
 * `3m ago`, `in 8m`, `now` (within a second, or two ahead); further than 30 days either way, the UTC date
 * (`2026-10-01`). Text that is not a time is returned as it is (the caller sanitises).
 */
export function relativeTime(iso: string, nowMs: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const delta = t - nowMs;
  const abs = Math.abs(delta);
  // The service's clock is known to the second (its Date header): just ahead is still now.
  if (abs < S || (delta > 0 && delta < 2 * S)) return 'now';
  if (abs >= 30 * D) return new Date(t).toISOString().slice(0, 10);
  return delta < 0 ? `${coarse(abs)} ago` : `in ${coarse(abs)}`;
}

/**
 * A countdown: `14m52s` under an hour, `2h05m` above (seconds stop mattering), `expired` at or
 * after the end.
 */
export function timeLeft(untilMs: number, nowMs: number): string {
  const ms = untilMs - nowMs;
  if (ms <= 0) return 'expired';
  if (ms < H) return formatDuration(Math.floor(ms / S) * S);
  const h = Math.floor(ms / H);
  const m = Math.floor((ms % H) / M);
  return `${h}h${String(m).padStart(2, '0')}m`;
}
