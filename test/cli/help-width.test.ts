// Help fits the terminal (docs/ux.md, "Help width"): at most 80 columns on an 80-column terminal,
// the whole width of a wider one, 80 when stdout is not a terminal. Footers (prose, examples,
// exit codes) are flowed when the help is shown, not hard-wrapped in the source.
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { commandPaths } from '../../src/cli/man-page.js';
import { createStreams } from '../../src/io/streams.js';
import { flowFooter } from '../../src/runtime/help-text.js';
import { runCli } from '../helpers/cli.js';
import { hasTmux, killAllTmux, startTmux } from '../helpers/tmux.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/svc.js');

function realProgram(): Command {
  const io = createStreams({ tty: { stdin: false, stdout: false, stderr: false }, env: {} });
  return buildProgram({ factory: () => { throw new Error('no command runs here'); }, io });
}

const over = (text: string, width: number) => text.split('\n').filter((l) => l.length > width);
const PATHS = [[], ...commandPaths(realProgram()).map((p) => p.split(' '))];

afterEach(killAllTmux);

describe('help width', () => {
  it('every command\'s --help on an 80-column terminal has no line over 80', async () => {
    expect(PATHS.length).toBeGreaterThan(40);
    const long: string[] = [];
    for (const path of PATHS) {
      const r = await runCli([...path, '--help'], { tty: { stdout: true }, columns: 80 });
      expect(r.code, path.join(' ')).toBe(0);
      for (const line of over(r.stdout, 80)) long.push(`svc ${path.join(' ')}: ${line}`);
    }
    expect(long).toEqual([]);
    // Examples too long for the width break between words with a backslash, or put the comment above.
    const lines = ['Examples:', '  $ svc transfer send @acme 1200 --idempotency-key "rent-$(date +%Y-%m)"   # once a month', '  $ svc a \\', '      --b "c d"'];
    expect(flowFooter(lines, 200)).toBe(['Examples:', '  $ svc transfer send @acme 1200 --idempotency-key "rent-$(date +%Y-%m)"   # once a month', '  $ svc a --b "c d"'].join('\n'));
    const narrow = flowFooter(lines, 50).split('\n');
    expect(narrow).toEqual(['Examples:', '  # once a month', '  $ svc transfer send @acme 1200 \\', '      --idempotency-key "rent-$(date +%Y-%m)"', '  $ svc a --b "c d"']);
  });

  it('not a terminal: 80 columns, whatever COLUMNS says', async () => {
    for (const path of [[], ['transfer', 'send'], ['transfer', 'batch'], ['completion']]) {
      const r = await runCli([...path, '--help'], { columns: 200, env: { COLUMNS: '200' } });
      expect(over(r.stdout, 80), path.join(' ')).toEqual([]);
    }
  });

  it('a wider terminal is used: option descriptions and footers run to its width', async () => {
    const wide = await runCli(['transfer', 'send', '--help'], { tty: { stdout: true }, columns: 160 });
    // One line each at 160 columns; wrapped at 80.
    expect(wide.stdout).toMatch(/^ {2}--timeout-wait <duration> +how long --wait waits: .*then 2m\)$/m);
    expect(wide.stdout).toMatch(/^The amount is a decimal string .{100,}$/m);
    expect(over(wide.stdout, 160)).toEqual([]);
    const narrow = await runCli(['transfer', 'send', '--help'], { tty: { stdout: true }, columns: 80 });
    expect(narrow.stdout.split('\n').length).toBeGreaterThan(wide.stdout.split('\n').length);
  });
});

describe.skipIf(!hasTmux())('help width in a real terminal', () => {
  it('`svc transfer send --help` in an 80-column tmux: no line was wrapped by the terminal', async () => {
    const term = await startTmux([process.execPath, BIN, 'transfer', 'send', '--help'], { width: 80, height: 60, env: { PATH: process.env.PATH, NO_COLOR: '1' } });
    expect(await term.waitForExit()).toBe(0);
    // capture -J joins the lines the terminal wrapped: a line over 80 shows as one.
    const screen = await term.capture();
    expect(screen).toContain('Exit codes: 0 sent');
    expect(over(screen, 80)).toEqual([]);
    // It is the help an 80-column terminal gets in process, line for line.
    const inProcess = await runCli(['transfer', 'send', '--help'], { tty: { stdout: true }, columns: 80 });
    expect(screen).toBe(inProcess.stdout.trimEnd());
  });
});
