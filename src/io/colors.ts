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
