// Status lines in a real terminal (tmux) at 40 and 80 columns (docs/ux.md, Status lines): the wait
// of a held `transfer send --wait` and the progress of `transfer batch` stay one row, however often
// they are drawn. A line wider than the terminal wraps, and `\r` + clear-line clears only its last
// row: each redraw left a row behind (117 rows after 8 s at 80 columns). The terminal's output is
// recorded byte for byte, so each test counts the redraws it waited for (no sleeping for time to
// pass), then counts the rows of the pane, scrollback included.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { svcIn } from '../helpers/cli.js';
import { BIN, spawnSandbox, type SpawnedSandbox } from '../helpers/e2e.js';
import { startLossyProxy } from '../helpers/lossy-proxy.js';
import { hasTmux, killAllTmux, startTmux, type TmuxOptions, type TmuxSession } from '../helpers/tmux.js';
import { textWidth } from '../../src/io/table.js';

/** How a status line is redrawn in place: back to the start of the row, the row cleared. */
const REDRAW = '\r\u001b[2K';
const redraws = (output: string) => output.split(REDRAW).length - 1;
const FRAME = /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /;

afterEach(killAllTmux);

describe.skipIf(!hasTmux())('status lines stay one row at 40 and 80 columns (tmux, a sandbox process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-status-lines-'));
  const env = { SVC_CONFIG_DIR: dir, NO_COLOR: '1' };
  let sandbox: SpawnedSandbox | undefined;
  let agentKey = '';
  let ownerKey = '';

  const svc = async (args: string[]) => {
    const r = await svcIn(args, env);
    if (r.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout.trim();
  };

  beforeAll(async () => {
    sandbox = await spawnSandbox(['sandbox', 'start', '--port', '0', '--quiet'], env);
    await svc(['agent', 'create', 'payer', '--hitl-threshold', '50', '--daily-limit', '10000']);
    agentKey = await svc(['sandbox', 'key', 'create', '--account', '@alice/payer']);
    ownerKey = await svc(['sandbox', 'key', 'create', '--account', '@alice']);
    await svc(['sandbox', 'fund', '@alice/payer', '1000']);
    await svc(['sandbox', 'fund', '@alice', '1000']);
  }, 60_000);
  afterAll(async () => {
    await killAllTmux();
    await sandbox?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  function terminal(command: string[], width: number, extra: Record<string, string>): Promise<TmuxSession> {
    const opts: TmuxOptions = {
      width,
      height: 30,
      record: true,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', NO_COLOR: '1', ...extra },
    };
    return startTmux(command, opts);
  }

  /** Polls the recorded output until the status line has been drawn `n` times. */
  async function redrawn(term: TmuxSession, n: number, timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (redraws(term.output()) < n) {
      if (performance.now() > deadline) throw new Error(`${redraws(term.output())} redraws, not ${n}; the screen shows:\n${await term.capture()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * The pane, scrollback included: `messages` lines printed above the status line (they wrap as
   * prose does), then the status line, one row within the width. Returns both.
   */
  async function screen(term: TmuxSession, width: number, messages: number): Promise<{ status: string; above: string[] }> {
    // Two captures of a running spinner: a frame drawn between them differs only in its spinner
    // character or seconds, so capture again until both show the same frame (a busy machine).
    let lines: string[] = [];
    let rows: string[] = [];
    for (let tries = 0; tries < 20 && (tries === 0 || rows.at(-1) !== lines.at(-1)); tries++) {
      lines = (await term.capture()).split('\n'); // what was printed: rows the terminal wrapped are joined
      rows = (await term.capture({ rows: true })).split('\n'); // as the terminal shows them
    }
    expect(lines, rows.join('\n')).toHaveLength(messages + 1);
    const above = lines.slice(0, messages);
    const status = lines.at(-1)!;
    expect(textWidth(status), status).toBeLessThan(width);
    expect(rows, rows.join('\n')).toHaveLength(above.reduce((n, l) => n + Math.max(1, Math.ceil(textWidth(l) / width)), 0) + 1);
    // The two captures are moments apart: the spinner's frame and its seconds may have moved on.
    const still = (line: string | undefined) => line?.replace(/^\S /, '').replace(/\d+s$/, 'Ns');
    expect(still(rows.at(-1))).toBe(still(status));
    return { status, above };
  }

  for (const width of [40, 80]) {
    it(`the wait of a held \`transfer send --wait\` at ${width} columns: one row, the id whole`, async () => {
      const term = await terminal([process.execPath, BIN, 'transfer', 'send', '@acme', '60', '--wait'], width, { SVC_CONFIG_DIR: dir, SVC_API_KEY: agentKey });
      await redrawn(term, 50); // the spinner's frames: 4 s of waiting
      const { status, above } = await screen(term, width, 1);
      expect(above[0]).toMatch(/^held for approval: txn_\w+ is above the agent's approval threshold/);
      const id = /txn_\w+/.exec(above[0]!)![0];
      expect(status).toMatch(FRAME);
      expect(status).toContain(id);
      // At 80 columns the words give room, the id and the state stay whole.
      if (width === 80) expect(status).toMatch(new RegExp(`^. waiting for a human to… ${id}: pending_approval, \\d+s$`));

      await term.sendKeys('C-c');
      expect(await term.waitForExit()).toBe(130);
      expect(await term.capture()).toContain(`stopped waiting for held transaction ${id}`);
    }, 60_000);
  }

  it('`transfer batch` progress at 40 columns with stdout in a file: one row, as wide as stderr\'s terminal', async () => {
    // Each transfer answered 150 ms late (a slow service): every row is drawn (at most every 100 ms).
    const proxy = await startLossyProxy(sandbox!.url, async (req) => {
      if (req.method === 'POST' && req.url === '/v1/transfers') await new Promise((r) => setTimeout(r, 150));
      return 'forward' as const;
    });
    try {
      const csv = join(dir, 'payouts.csv');
      writeFileSync(csv, `to,amount,ref\n${Array.from({ length: 30 }, (_, i) => `@acme,0.${String(i + 1).padStart(2, '0')},P-${i + 1}`).join('\n')}\n`);
      const out = join(dir, 'results.tsv');
      const term = await terminal(['sh', '-c', '"$0" "$1" transfer batch "$2" --concurrency 1 > "$3"', process.execPath, BIN, csv, out], 40, {
        SVC_CONFIG_DIR: mkdtempSync(join(dir, 'batch-')), SVC_API_KEY: ownerKey, SVC_BASE_URL: proxy.url,
      });
      await redrawn(term, 15);
      const { status, above } = await screen(term, 40, 1);
      expect(above[0]).toMatch(/^note: the totals are not checked against the balance/);
      expect(status).toMatch(/^\[[#-]+\] {2}\d+\/30 /);
      expect(await term.waitForExit(30_000)).toBe(0);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('`transfer batch` on a terminal: a page of the table printed while the progress shows is whole, on rows of its own', async () => {
    // 110 rows: the first page of the table (100 rows) is printed while the bar is up.
    const csv = join(dir, 'page.csv');
    writeFileSync(csv, `to,amount,ref\n${Array.from({ length: 110 }, (_, i) => `@acme,0.${String(i + 1).padStart(3, '0')},Q-${i + 1}`).join('\n')}\n`);
    const term = await terminal([process.execPath, BIN, 'transfer', 'batch', csv, '--concurrency', '1'], 80, {
      SVC_CONFIG_DIR: mkdtempSync(join(dir, 'batch-')), SVC_API_KEY: ownerKey, SVC_BASE_URL: sandbox!.url,
    });
    expect(await term.waitForExit(60_000)).toBe(0);
    expect(redraws(term.output())).toBeGreaterThan(1); // the bar was up when the page came
    const lines = (await term.capture()).split('\n');
    expect(lines.filter((l) => /^LINE {2}TO /.test(l)), lines.slice(0, 4).join('\n')).toHaveLength(1);
    expect(lines.filter((l) => /^ +\d+ {2}@acme /.test(l)).map((l) => Number(l.trim().split(' ')[0]))).toEqual(Array.from({ length: 110 }, (_, i) => i + 2));
    expect(lines.join('\n')).not.toContain('[#'); // the bar is gone once the table is done
    expect(lines.at(-1)).toMatch(/^sent 110, /);
  }, 60_000);
});
