// `svc pending review --watch` in a real terminal (tmux) against a durable sandbox process
// (--state) that is stopped and started again on the same port, twice: once while a prompt is on
// screen, once while the review waits. The review never dies: it says "reconnecting…", comes back,
// approves, shows a transaction held after the restart with the agent's spend today, and runs
// --notify-command once per transaction, told nothing of the amount.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { svcIn } from '../../helpers/cli.js';
import { BIN, spawnSandbox, type SpawnedSandbox } from '../../helpers/e2e.js';
import { hasTmux, killAllTmux, startTmux } from '../../helpers/tmux.js';

const TXN_RE = /txn_[A-Za-z0-9]{24}/;
const CANARY = '7319.4711';

describe.skipIf(!hasTmux())('review --watch across a sandbox restart (tmux, a real sandbox process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-review-restart-'));
  const env = { SVC_CONFIG_DIR: dir, NO_COLOR: '1' };
  const statePath = join(dir, 'sandbox', 'state.db');
  const notified = join(dir, 'notified.txt');
  let sandbox: SpawnedSandbox | undefined;

  afterAll(async () => {
    await killAllTmux();
    await sandbox?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (port: string) => {
    sandbox = await spawnSandbox(['sandbox', 'start', '--port', port, '--state', statePath, '--quiet'], env);
    return sandbox;
  };
  const svc = async (args: string[], extra: Record<string, string> = {}) => {
    const r = await svcIn(args, env, { env: extra });
    if (r.code !== 0 && r.code !== 8) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r;
  };

  it('keeps running: "reconnecting…" while it is down, then decides, then shows what was held after the restart; notifies once per transaction', async () => {
    const first = await start('0');
    const port = new URL(first.url).port;
    // 06:00 UTC tomorrow on the sandbox's clock: today's spend cannot roll over mid-test.
    const now = Date.parse(JSON.parse((await svc(['--json', 'sandbox', 'clock'])).stdout).now as string);
    await svc(['sandbox', 'clock', 'advance', `${Math.ceil((Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000 + 6 * 3_600_000 - now) / 1000)}s`]);
    await svc(['agent', 'create', 'payer', '--hitl-threshold', '50', '--daily-limit', '10000']);
    const agentKey = (await svc(['sandbox', 'key', 'create', '--account', '@alice/payer'])).stdout.trim();
    await svc(['sandbox', 'fund', '@alice/payer', '20000']);
    const hold = async (amount: string) => TXN_RE.exec((await svc(['--json', 'transfer', 'send', '@acme', amount], { SVC_API_KEY: agentKey })).stdout)![0];

    // The approver's command: what it is told, appended to a file (the values only in its environment).
    writeFileSync(join(dir, 'notify.sh'), 'env | grep "^SVC_" | sort >> "$OUT"\necho --- >> "$OUT"\n');
    const term = await startTmux([process.execPath, BIN, 'pending', 'review', '--watch', '--interval', '200ms', '--notify-command', `sh ${join(dir, 'notify.sh')}`], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', SVC_CONFIG_DIR: dir, NO_COLOR: '1', OUT: notified },
      width: 80,
    });
    await term.waitFor('waiting for held transactions… (Ctrl-C to stop)');

    // 1. Held, on screen; the service goes away under the prompt and comes back on the same port.
    const a = await hold('60');
    await term.waitFor(`Held transaction 1 of 1: ${a}`);
    await first.stop('SIGTERM');
    await term.waitFor(/^ {2}reconnecting… no answer \(network_error\); \d+ tr(y|ies), next in \d+s$/m);
    await start(port);
    await term.waitFor(/^ {2}reconnected: the service answers again$/m, 40_000);
    await term.sendText('a');
    await term.waitFor(new RegExp(`✓ approved ${a}: 60\\.00 USDG from @alice/payer to @acme, submitted as transfer tr_\\w+`));

    // 2. Down while it waits: the line below "waiting…" says so, in place; a restart, and what is held after it is shown.
    await term.waitFor(/✓ approved [^\n]*\nwaiting for held transactions… \(Ctrl-C to stop\)$/);
    await sandbox!.stop('SIGTERM');
    await term.waitFor(/waiting for held transactions… \(Ctrl-C to stop\)\nreconnecting… no answer \(network_error\)/);
    await start(port);
    const b = await hold(CANARY);
    const screen = await term.waitFor(`Held transaction 1 of 1: ${b}`, 40_000);
    expect(screen).toMatch(/^reconnected: the service answers again \(after \d+ failed tr(y|ies)\)$/m);
    expect(screen).toMatch(/^ {2}amount {7}7319\.4711 USDG$/m);
    expect(screen).toMatch(/^ {2}spent today {2}60\.00 of its 10000\.00 daily limit \(9940\.00 left\)$/m);
    expect(screen).toMatch(/^ {2}paid before {2}yes, once \(the last \d+s ago\)$/m);

    // Each transaction was notified once (A before the restarts, B after), never with its amount.
    const told = () => (existsSync(notified) ? readFileSync(notified, 'utf8') : '');
    await waitUntil(() => told().split('---\n').length === 3);
    const text = told();
    expect(text.match(/^SVC_TRANSACTION_ID=.*$/gm)).toEqual([`SVC_TRANSACTION_ID=${a}`, `SVC_TRANSACTION_ID=${b}`]);
    expect(text).toContain('SVC_AGENT=@alice/payer\n');
    expect(text).toContain('SVC_TO=@acme\n');
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain('7319471100');

    await term.sendKeys('C-c');
    expect(await term.waitForExit()).toBe(130);
    expect(await term.capture()).toMatch(/^interrupted: approved 1, rejected 0, skipped 0, expired 0$/m);
  }, 120_000);
});

/** Waits for a file to say something (on output, not on time). */
async function waitUntil(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
