// Minimal colour helpers that honour IOStreams.color; chalk is loaded only when colour is on.
import type { IOStreams } from './streams.js';

export type Paint = (text: string) => string;
export interface Palette {
  red: Paint;
  green: Paint;
  yellow: Paint;
  dim: Paint;
  bold: Paint;
  cyan: Paint;
  badge(environment: 'live' | 'test'): string;
}

const plain: Paint = (t) => t;

export async function palette(io: IOStreams): Promise<Palette> {
  if (!io.color) {
    return {
      red: plain, green: plain, yellow: plain, dim: plain, bold: plain, cyan: plain,
      badge: (env) => (env === 'live' ? '[LIVE]' : '[TEST]'),
    };
  }
  const { Chalk } = await import('chalk');
  const c = new Chalk({ level: 1 });
  return {
    red: (t) => c.red(t),
    green: (t) => c.green(t),
    yellow: (t) => c.yellow(t),
    dim: (t) => c.dim(t),
    bold: (t) => c.bold(t),
    cyan: (t) => c.cyan(t),
    badge: (env) => (env === 'live' ? c.bgRed.white.bold(' LIVE ') : c.bgYellow.black.bold(' TEST ')),
  };
}

/** A transfer's or a held transaction's status in its colour: done green, ended without money moving red, waiting yellow. */
export function colourStatus(p: Palette, status: unknown): string {
  const s = String(status ?? '');
  if (s === 'confirmed' || s === 'approved') return p.green(s);
  if (s === 'failed' || s === 'rejected' || s === 'expired') return p.red(s);
  if (s === 'pending' || s === 'pending_approval') return p.yellow(s);
  return s;
}

/**
 * Whether text written to stderr may carry colour: colour is on (streams.ts: a terminal, no
 * NO_COLOR, no --no-color, TERM not dumb) and stderr itself is a terminal, so `2>file` stays plain.
 */
export function stderrColor(io: IOStreams): boolean {
  return io.color && io.stderrIsTTY;
}

/** The styles of stderr reports, without loading chalk (reportError is synchronous). */
export interface StderrPaint {
  red: Paint;
  green: Paint;
  dim: Paint;
}

const sgr = (open: number, close: number): Paint => (t) => `\u001b[${open}m${t}\u001b[${close}m`;

/** For stderr: the same escape codes chalk writes at level 1, or none at all. */
export function stderrPaint(io: IOStreams): StderrPaint {
  return stderrColor(io) ? { red: sgr(31, 39), green: sgr(32, 39), dim: sgr(2, 22) } : { red: plain, green: plain, dim: plain };
}
