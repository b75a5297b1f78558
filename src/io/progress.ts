// A progress bar on stderr for long runs (`transfer batch`): rows done / total, rate and ETA.
// Drawn only when stderr is a terminal, at most every 100 ms, on the one status line (status-line.ts:
// the width of stderr's terminal, whatever stdout is, redrawn in place and on a resize); without
// a terminal it draws nothing at all (scripts and cron logs get errors only).
import { formatDuration } from '../domain/duration.js';
import { statusLine } from './status-line.js';
import type { IOStreams } from './streams.js';

export interface Progress {
  /** `done` of `total` finished. */
  update(done: number): void;
  /** Clears the bar (the caller prints its own summary). */
  stop(): void;
}

const REDRAW_MS = 100;

/** `[########------------]  412/1000  83/s  ETA 7s`, in fewer than `width` columns. */
export function progressLine(done: number, total: number, elapsedMs: number, width: number): string {
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const left = total - done;
  const eta = rate > 0 && left > 0 ? `  ETA ${formatDuration(Math.ceil(left / rate) * 1000)}` : '';
  const tail = `  ${done}/${total}  ${rate >= 10 ? Math.round(rate) : rate.toFixed(1)}/s${eta}`;
  const barWidth = Math.max(10, Math.min(40, width - tail.length - 3));
  const filled = total > 0 ? Math.round((done / total) * barWidth) : barWidth;
  return `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]${tail}`.slice(0, Math.max(0, width - 1));
}

export function startProgress(io: IOStreams, total: number, now: () => number): Progress {
  if (!io.stderrIsTTY) return { update: () => {}, stop: () => {} };
  const started = now();
  let drawn = 0;
  let last = 0;
  const line = statusLine(io);
  // Made for the width it is drawn at (+1: the status line keeps the last column free already).
  const draw = (done: number) => {
    const elapsed = now() - started;
    line.show((columns) => progressLine(done, total, elapsed, columns + 1));
  };
  draw(0);
  return {
    update(done) {
      last = done;
      const t = now();
      if (t - drawn < REDRAW_MS && done < total) return;
      drawn = t;
      draw(last);
    },
    stop() {
      line.clear();
    },
  };
}
