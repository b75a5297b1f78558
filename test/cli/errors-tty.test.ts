// An error in a real terminal (tmux, 80x24, bin/svc.js): `error:` in red and the hint dimmed on
// stderr; with NO_COLOR=1 not one escape sequence. The screen is read with its escape sequences
// (capture-pane -e), so what is checked is what the terminal was told to draw.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { hasTmux, killAllTmux, startTmux } from '../helpers/tmux.js';

afterEach(killAllTmux);

const ESC = '\u001b';

describe.skipIf(!hasTmux())('an error on a terminal', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  async function screenOf(args: string[], extraEnv: Record<string, string> = {}) {
    const term = await startTmux([process.execPath, BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', SVC_CONFIG_DIR: t.configDir, ...extraEnv },
      width: 80,
      height: 24,
    });
    const code = await term.waitForExit();
    return { code, screen: await term.capture({ escapes: true }) };
  }

  it('shows `error:` in red and the hint dimmed', async () => {
    const { code, screen } = await screenOf(['transfer', 'send', '@acme', '987654.321078']);
    expect(code).toBe(6);
    const [error, hint] = screen.split('\n');
    // Red on, the word, default colour back; the message itself in the terminal's own colour.
    expect(error).toMatch(new RegExp(`^${ESC}\\[31merror:${ESC}\\[39m .* \\(insufficient_balance, request req_\\w+\\)$`));
    // The whole hint line dim (tmux may restate the attribute, so only its start is pinned).
    expect(hint).toMatch(new RegExp(`^${ESC}\\[2mhint: see what the account holds with \`svc balance\`; add test funds with\\s*`));
    expect(screen).toContain('`svc sandbox fund @alice <amount>`');
    expect(screen).not.toContain('987654.321078');
  });

  it('with NO_COLOR=1: the same words and no escape sequence at all', async () => {
    const { code, screen } = await screenOf(['transfer', 'send', '@acme', '987654'], { NO_COLOR: '1' });
    expect(code).toBe(6);
    expect(screen).not.toContain(ESC);
    expect(screen).toMatch(/^error: .* \(insufficient_balance, request req_\w+\)\nhint: see what the account holds with `svc balance`; add test funds with `svc sandbox fund @alice <amount>`$/);
  });

  it('Ctrl-C during `transfer send --wait`: the transfer keeps settling, the hint follows it (exit 130)', async () => {
    const term = await startTmux([process.execPath, BIN, 'transfer', 'send', '@acme', '1', '--wait'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', SVC_CONFIG_DIR: t.configDir, NO_COLOR: '1' },
      width: 80,
      height: 24,
    });
    // The test sandbox settles nothing until its clock is advanced: the wait goes on until Ctrl-C.
    const [, id, key] = /submitted transfer (tr_\w+) \(pending\) under idempotency key (\S+)/.exec(await term.waitFor(/waiting for transfer tr_\w+/))!;
    await term.sendKeys('C-c');
    expect(await term.waitForExit()).toBe(130);
    const screen = await term.capture();
    // What was accepted is named: the transfer and the key it was sent under.
    expect(screen.split('\n').slice(-2)).toEqual([
      `error: stopped waiting: transfer ${id} was submitted and keeps settling; idempotency key ${key} (interrupted)`,
      `hint: follow it with \`svc transfer get ${id} --wait\``,
    ]);
    expect((await t.svcJson<{ status: string }>(['transfer', 'get', id])).status).toBe('pending');
  });

  it('with --json: the error object, uncoloured, even on a terminal', async () => {
    const { code, screen } = await screenOf(['--json', 'transfer', 'send', '@acme', '987654']);
    expect(code).toBe(6);
    expect(screen).not.toContain(ESC);
    expect(JSON.parse(screen.replace(/\n/g, ''))).toMatchObject({ error: { code: 'insufficient_balance', hint: expect.stringContaining('`svc balance`') } });
  });
});
