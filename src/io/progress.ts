// A progress bar on stderr for long runs (`transfer batch`): rows done / total, rate and ETA.
// Drawn only when stderr is a terminal, at most every 100 ms; without a terminal it draws
// nothing at all (scripts and cron logs get errors only).
import { formatDuration } from '../domain/duration.js';
import type { IOStreams } from './streams.js';

export interface Progress {
  /** `done` of `total` finished. */
  update(done: number): void;
  /** Clears the bar (the caller prints its own summary). */
  stop(): void;
}

const CLEAR_LINE = '\r\u001b[2K';
const REDRAW_MS = 100;

/** `[########------------]  412/1000  83/s  ETA 7s`, fitted to `width` columns. */
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
  const draw = (done: number) => io.err(`${CLEAR_LINE}${progressLine(done, total, now() - started, io.columns)}`);
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
      io.err(CLEAR_LINE);
    },
  };
}
