// Tables in a real terminal of 80 columns (tmux): every list fits without wrapping, with ids whole,
// addresses shortened in the middle and amounts whole, right-aligned with their asset.
// (tmux's capture joins wrapped lines, so a line that wrapped shows up longer than 80.)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { hasTmux, killAllTmux, startTmux } from '../helpers/tmux.js';
import { textWidth } from '../../src/io/table.js';

afterEach(killAllTmux);

const WIDTH = 80;

describe.skipIf(!hasTmux())('lists at 80 columns', () => {
  let t: TestSandbox;
  let botKey: string;

  function ok(args: string[], env: Record<string, string> = {}) {
    return t.svcOk(args, { env });  }

  beforeAll(async () => {
    t = await startTestSandbox();
    await ok(['sandbox', 'fund', '@alice', '100000']);
    for (const [to, amount] of [['@acme', '12.5'], ['0x7a3f000000000000000000000000000000091c2b', '1234.125'], ['@bob', '0.000001']] as const) {
      await ok(['transfer', 'send', to, amount, '--memo', 'a memo that is long enough to need cutting on a narrow screen']);
    }
    await ok(['agent', 'create', 'payroll-disbursement-bot', '--daily-limit', '1000', '--hitl-threshold', '50']);
    await ok(['agent', 'create', 'ops', '--daily-limit', '100']);
    botKey = (await ok(['sandbox', 'key', 'create', '--account', '@alice/payroll-disbursement-bot', '--name', 'the nightly payroll runner on the build server'])).stdout.trim();
    await ok(['sandbox', 'fund', '@alice/payroll-disbursement-bot', '1000']);
    await ok(['transfer', 'send', '@acme', '75.5', '--memo', 'held: above the threshold'], { SVC_API_KEY: botKey });
    await t.sandbox.advance(90_000); // the transfers settle; the held one has 13m30s left
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  async function screenOf(args: string[]): Promise<string[]> {
    const term = await startTmux([process.execPath, BIN, ...args], {
      width: WIDTH,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', SVC_CONFIG_DIR: t.configDir, NO_COLOR: '1' },
    });
    expect(await term.waitForExit()).toBe(0);
    const lines = (await term.capture()).split('\n');
    for (const line of lines) expect(textWidth(line), `${args.join(' ')}: "${line}"`).toBeLessThanOrEqual(WIDTH);
    return lines;
  }

  it('transfer ls', async () => {
    const lines = await screenOf(['transfer', 'ls']);
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+TO\s+.*AMOUNT/);
    expect(lines).toHaveLength(5);
    // What the width left out is named (on stderr, which shares the terminal) after the last row.
    expect(lines[4]).toBe('FROM, CONFIDENTIAL, TX HASH not shown: widen the terminal or use --json');
    // The 0x address keeps both ends (in its EIP-55 form); amounts keep every digit, aligned on the right.
    const row = lines.find((l) => l.includes('1234.125000 USDG'))!;
    expect(row).toMatch(/0x7A3F\S*…\S*1C2b/);
    const ends = lines.slice(1, 4).map((l) => l.indexOf(' USDG'));
    expect(new Set(ends).size).toBe(1);
    expect(lines.join('\n')).toContain('0.000001 USDG');
    expect(lines.join('\n')).toContain('12.500000 USDG');
    expect(lines[1]).toMatch(/\b(1m|2m) ago\b/);
  }, 30_000);

  it('agent ls', async () => {
    const lines = await screenOf(['agent', 'ls']);
    expect(lines[0]).toMatch(/^HANDLE\s+/);
    expect(lines.join('\n')).toContain('@alice/ops');
    expect(lines.join('\n')).toMatch(/@alice\/pay\S*…\S*bot|@alice\/payroll-disbursement-bot/);
  }, 30_000);

  it('sandbox key ls', async () => {
    const lines = await screenOf(['sandbox', 'key', 'ls']);
    expect(lines[0]).toMatch(/^KEY ID\s+NAME\s+ACCOUNT\s+KEY\b/); // the id revoke takes, whole (docs/ux.md, Ids)
    expect(lines.some((l) => /^key_[A-Za-z0-9]{16}\s+the nightly \S*.*…/.test(l))).toBe(true); // the name is cut at the end
    expect(lines.join('\n')).not.toContain(botKey); // the key itself never shows
  }, 30_000);

  it('transfer batch: the results table and the summary line', async () => {
    const csv = join(mkdtempSync(join(tmpdir(), 'svc-batch-tty-')), 'pay.csv');
    writeFileSync(csv, 'to,amount,asset,memo,ref\n@acme,12.5,USDG,invoice for the quarterly retainer,T-1\n0x7a3f000000000000000000000000000000091c2b,0.000001,USDG,,T-2\n@bob,3,USDC,,T-3\nnobody,1,USDG,,T-4\n');
    const lines = await screenOf(['transfer', 'batch', csv, '--skip-invalid']);
    expect(lines[0]).toMatch(/^LINE\s+TO\s+AMOUNT\s+STATUS\s+/);
    expect(lines.join('\n')).toMatch(/12\.500000 USDG\s+sent/);
    expect(lines.join('\n')).toMatch(/0\.000001 USDG\s+sent/);
    expect(lines.join('\n')).toMatch(/skipped\s+invalid_row/);
    expect(lines).toContain('sent 3, held 0, failed 0, skipped 1; total 12.500001 USDG, 3.00 USDC');
  }, 30_000);

  it('pending ls', async () => {
    const lines = await screenOf(['pending', 'ls']);
    expect(lines[0]).toMatch(/^ID\s+AGENT\s+/);
    expect(lines.join('\n')).toMatch(/75\.50 USDG/);
    expect(lines.join('\n')).toMatch(/13m\d\ds|13m30s/);
  }, 30_000);
});
