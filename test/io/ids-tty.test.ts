// Every id on screen can be pasted back (docs/ux.md, Ids): in a real terminal of 80 columns
// (tmux), an id taken exactly as `transfer ls`, `pending ls` and `sandbox key ls` show it works
// in `transfer get`, `pending approve` and `sandbox key revoke`, typed into the same terminal.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { hasTmux, killAllTmux, startTmux, type TmuxSession } from '../helpers/tmux.js';
import { textWidth } from '../../src/io/table.js';

afterEach(killAllTmux);

const WIDTH = 80;
// Long enough to take every column a table may give: both addresses whole would need 84 columns.
const FAR = '0x7a3f000000000000000000000000000000091c2b';

describe.skipIf(!hasTmux())('ids at 80 columns are pasted back as shown', () => {
  let t: TestSandbox;

  function ok(args: string[], env: Record<string, string> = {}) {
    return t.svcOk(args, { env });  }

  beforeAll(async () => {
    t = await startTestSandbox();
    await ok(['sandbox', 'fund', '@alice', '100000']);
    await ok(['transfer', 'send', FAR, '1234.125', '--memo', 'a memo long enough to need cutting on a narrow screen']);
    await ok(['transfer', 'send', '@bob', '0.000001']);
    await ok(['agent', 'create', 'payroll-disbursement-bot', '--daily-limit', '5000', '--hitl-threshold', '50']);
    const botKey = (await ok(['sandbox', 'key', 'create', '--account', '@alice/payroll-disbursement-bot', '--name', 'the nightly payroll runner on the build server'])).stdout.trim();
    await ok(['sandbox', 'fund', '@alice/payroll-disbursement-bot', '5000']);
    await ok(['transfer', 'send', FAR, '1075.5', '--memo', 'held: above the threshold'], { SVC_API_KEY: botKey });
    await t.sandbox.advance(90_000); // the transfers settle: a TX HASH to show, or to drop
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  function terminal(args: string[]): Promise<TmuxSession> {
    return startTmux([process.execPath, BIN, ...args], {
      width: WIDTH,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', SVC_CONFIG_DIR: t.configDir, NO_COLOR: '1' },
    });
  }

  /** The screen of a list, every line within the terminal (a wrapped line would be longer). */
  async function listed(args: string[]): Promise<string[]> {
    const term = await terminal(args);
    expect(await term.waitForExit()).toBe(0);
    const lines = (await term.capture()).split('\n');
    for (const line of lines) expect(textWidth(line), `${args.join(' ')}: "${line}"`).toBeLessThanOrEqual(WIDTH);
    return lines;
  }

  /** The first word of the line that `pick` finds below the header: the id as a person copies it. */
  function idOf(lines: string[], pick: (line: string) => boolean = () => true): string {
    const row = lines.slice(1).find(pick);
    expect(row, lines.join('\n')).toBeDefined();
    return row!.split(/\s+/)[0]!;
  }

  it('transfer ls → transfer get', async () => {
    const lines = await listed(['transfer', 'ls']);
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+TO\s+/);
    const shown = idOf(lines, (l) => l.includes('1234.125'));
    expect(shown).toMatch(/^tr_[A-Za-z0-9]{24}$/); // whole: no `…`
    const get = await terminal(['transfer', 'get', shown]);
    expect(await get.waitForExit(), await get.capture()).toBe(0);
    expect(await get.capture()).toContain(`transfer ${shown}`);
  }, 30_000);

  it('pending ls → pending approve', async () => {
    const lines = await listed(['pending', 'ls']);
    expect(lines[0]).toMatch(/^ID\s+AGENT\s+/);
    const shown = idOf(lines, (l) => l.includes('1075.50 USDG'));
    expect(shown).toMatch(/^txn_[A-Za-z0-9]{24}$/);
    const approve = await terminal(['pending', 'approve', shown]);
    expect(await approve.waitForExit(), await approve.capture()).toBe(0);
    expect(await approve.capture()).toContain(`approved ${shown}`);
  }, 30_000);

  it('sandbox key ls → sandbox key revoke (confirmed in the terminal)', async () => {
    const lines = await listed(['sandbox', 'key', 'ls']);
    expect(lines[0]).toMatch(/^KEY ID\s+NAME\s+/);
    const shown = idOf(lines, (l) => l.includes('the nightly'));
    expect(shown).toMatch(/^key_[A-Za-z0-9]{16}$/);
    const revoke = await terminal(['sandbox', 'key', 'revoke', shown]);
    await revoke.waitFor(`Revoke API key ${shown}`);
    await revoke.sendText('y');
    await revoke.sendKeys('Enter');
    expect(await revoke.waitForExit(), await revoke.capture()).toBe(0);
    expect(await revoke.capture()).toContain(`revoked ${shown}`);
    const keys = await t.svcJson<{ key_id: string; revoked_at?: string }[]>(['sandbox', 'key', 'ls']);
    expect(keys.find((k) => k.key_id === shown)?.revoked_at).toBeTruthy();
  }, 30_000);
});
